import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { CHART_STYLE, lineLegend, renderLineChart, type EquityPoint } from '../backtest/report';
import type { Decimal } from '../domain/decimal';
import type { DriftDifference, IntentOutcome } from './drift-types';
import { DRIFT_CAUSES } from './drift-types';
import type { DriftResult } from './run-drift';

export const DRIFT_REPORT_FORMAT = 1;

function outcomeJson(o: IntentOutcome | undefined): Record<string, unknown> | null {
  if (o === undefined) return null;
  return {
    kind: o.kind, side: o.side, amount: o.amount.toString(), price: o.price.toString(), filledAmount: o.filledAmount.toString(),
    filledMoney: o.filledMoney.toString(), fee: o.fee.toString(), firstFillTime: o.firstFillSec ?? null,
  };
}

function differenceJson(d: DriftDifference): Record<string, unknown> {
  return {
    kind: d.kind, cause: d.cause, detail: d.detail, intentId: d.intentId, strategy: d.strategy, market: d.market, candleTime: d.candleTime,
    fields: d.fields, live: outcomeJson(d.live), replay: outcomeJson(d.replay),
  };
}

function curveJson(curve: readonly EquityPoint[]): [number, string][] {
  return curve.map((p) => [p.time, p.equity.toString()]);
}

/** report.json: every number of money as a decimal string, times as Unix seconds (market time). */
export function driftJson(r: DriftResult, threshold: number): Record<string, unknown> {
  return {
    format: DRIFT_REPORT_FORMAT,
    window: { from: r.from, to: r.to, ...(r.askedFrom === undefined ? {} : { askedFrom: r.askedFrom }) },
    verdict: { unexplained: r.unexplained, threshold, ok: r.unexplained <= threshold },
    counts: r.counts,
    candlesRecorded: r.candlesRecorded,
    downtime: r.downtime,
    dataDrift: r.corrected === null ? { checked: false } : { checked: true, corrected: r.corrected.length, candles: r.corrected },
    strategies: r.strategies.map((s) => ({
      strategy: s.strategy, interval: s.interval, markets: s.markets, version: s.version, params: s.params,
      liveVersions: s.liveVersions, versionMatches: s.versionMatches, paramsFrom: s.paramsFrom,
      startBalances: Object.fromEntries(Object.entries(s.startBalances).map(([k, v]) => [k, v.toString()])),
      replayFrom: s.replayFrom, liveOrders: s.liveOrders, replayOrders: s.replayOrders, matched: s.matched,
      pnlDifference: s.pnlDifference.toString(), quoteCurrency: s.quoteCurrency,
      differences: s.differences.map(differenceJson),
      equity: { live: curveJson(s.liveEquity), replay: curveJson(s.replayEquity) },
    })),
  };
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function iso(sec: number): string {
  return new Date(sec * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The two equity curves on one time axis with its axes (the backtest report's chart): live a wide
 * translucent solid line, the replay a thin dashed one drawn over it, so both stay visible where they
 * coincide. The legend names both with their end values.
 */
function equityChart(live: readonly EquityPoint[], replay: readonly EquityPoint[], quote: string): string {
  const all = [...live, ...replay];
  if (all.length === 0) return '<p>No equity points.</p>';
  const value = (p: EquityPoint): number => p.value ?? p.equity.toNumber();
  const chart = renderLineChart({
    className: 'equity drift-equity', height: 300, title: 'Equity, live and replay', yLabel: `equity (${quote})`, xLabel: 'market time (UTC)',
    times: replay.map((p) => p.time), values: replay.map(value), lineClass: 'replay',
    series: [{ times: live.map((p) => p.time), values: live.map(value), className: 'live' }],
    from: Math.min(...all.map((p) => p.time)), to: Math.max(...all.map((p) => p.time)),
    maxStep: Infinity, // a flat stretch of the curve is not a gap: no break in the line
  });
  const [liveEnd, replayEnd] = endValues(live.at(-1)?.equity, replay.at(-1)?.equity);
  const same = live.length === replay.length && live.every((p, i) => p.time === replay[i]?.time && p.equity.eq(replay[i].equity));
  return `${lineLegend([
    { className: 'live', label: `live (the journal's fills), ends at ${liveEnd} ${quote}` },
    { className: 'replay', label: `replay (the backtest of the window), ends at ${replayEnd} ${quote}` },
  ])}${same ? '<p class="note">The two curves are identical: the dashed replay line lies on the live one.</p>' : ''}
<div class="chart">${chart}</div>`;
}

/** Both end values with as many decimals (2 to 8) as it takes to tell them apart. */
function endValues(live: Decimal | undefined, replay: Decimal | undefined): [string, string] {
  let decimals = 2;
  while (decimals < 8 && live !== undefined && replay !== undefined && !live.eq(replay) && live.toFixed(decimals) === replay.toFixed(decimals)) decimals++;
  return [live?.toFixed(decimals) ?? '–', replay?.toFixed(decimals) ?? '–'];
}

function differencesTable(list: readonly DriftDifference[]): string {
  if (list.length === 0) return '<p>No differences: every order matched.</p>';
  const rows = list.slice(0, 2000).map((d) => `<tr class="${esc(d.cause)}"><td>${esc(iso(d.candleTime))}</td><td>${esc(d.market)}</td><td>${esc(d.kind.replaceAll('_', ' '))}</td><td>${esc(d.cause.replaceAll('_', ' '))}</td><td>${esc(d.fields.join(', '))}</td><td>${esc(side(d.live))}</td><td>${esc(side(d.replay))}</td><td>${esc(d.detail)}</td></tr>`);
  return `<table><thead><tr><th>candle</th><th>market</th><th>difference</th><th>cause</th><th>fields</th><th>live</th><th>replay</th><th>why</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>${list.length > 2000 ? `<p>${list.length - 2000} more in report.json.</p>` : ''}`;
}

function side(o: IntentOutcome | undefined): string {
  if (o === undefined) return '-';
  return `${o.side} ${o.amount.toString()} @ ${o.price.toString()}; filled ${o.filledAmount.toString()}${o.firstFillSec === undefined ? '' : ` at ${iso(o.firstFillSec)}`}; fee ${o.fee.toString()}`;
}

export function driftHtml(r: DriftResult, threshold: number): string {
  const c = r.counts;
  const causeRows = DRIFT_CAUSES.map((cause) => `<tr><td>${esc(cause.replaceAll('_', ' '))}</td><td>${c.onlyLive[cause]}</td><td>${c.onlyReplay[cause]}</td><td>${c.different[cause]}</td></tr>`).join('');
  const verdict = r.unexplained <= threshold ? `<p class="ok">${r.unexplained} unexplained (threshold ${threshold}): OK</p>` : `<p class="bad">${r.unexplained} unexplained (threshold ${threshold}): DRIFT</p>`;
  const down = r.downtime.length === 0 ? '<p>None.</p>' : `<ul>${r.downtime.map((w) => `<li>${esc(iso(w.fromMarketMs / 1000))} → ${esc(iso(w.toMarketMs / 1000))} (${esc(w.startedBy)})</li>`).join('')}</ul>`;
  const data = r.corrected === null ? '<p>Not checked (run with <code>--venue-check</code>).</p>'
    : r.corrected.length === 0 ? '<p>Every recorded candle matches the venue\'s history.</p>'
      : `<p>${r.corrected.length} candle(s) the venue now serves differently:</p><table><thead><tr><th>market</th><th>candle</th><th>fields</th><th>recorded</th><th>venue now</th></tr></thead><tbody>${r.corrected.map((x) => `<tr><td>${esc(x.market)}</td><td>${esc(iso(x.time))}</td><td>${esc(x.fields.join(', '))}</td><td>${esc(JSON.stringify(x.recorded))}</td><td>${esc(JSON.stringify(x.venue))}</td></tr>`).join('')}</tbody></table>`;
  const sections = r.strategies.map((s) => `<section><h2>${esc(s.strategy)} ${esc(s.interval)} on ${esc(s.markets.join(', '))}</h2>
${s.versionMatches ? '' : `<p class="bad">The journal's orders were placed by version(s) ${esc(s.liveVersions.join(', '))}, the replay ran ${esc(s.version)}: differences may come from the code change.</p>`}
<p>version <code>${esc(s.version)}</code>, params <code>${esc(JSON.stringify(s.params))}</code> (from the ${s.paramsFrom}); replay from ${esc(new Date(s.replayFrom * 1000).toISOString())}; ${s.liveOrders} orders live, ${s.replayOrders} in the replay, ${s.matched} matched; PnL live − replay: <b>${esc(s.pnlDifference.toFixed(8))} ${esc(s.quoteCurrency)}</b></p>
${equityChart(s.liveEquity, s.replayEquity, s.quoteCurrency)}
<h3>Differences</h3>${differencesTable(s.differences)}</section>`).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Drift ${esc(iso(r.from))} – ${esc(iso(r.to))}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#222}table{border-collapse:collapse;width:100%;margin:8px 0}td,th{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f4f4f4}.ok{color:#176317;font-weight:600}.bad{color:#b00020;font-weight:600}tr.unexplained td{background:#fde8ea}.note{color:#555;font-style:italic;margin:4px 0}
${CHART_STYLE}
svg .line.live{stroke:#2563eb;stroke-width:4;stroke-opacity:.45}svg .line.replay{stroke:#c2410c;stroke-width:1.5;stroke-dasharray:6 4}</style></head><body>
<h1>Drift: live against its own backtest</h1>
<p>Window ${esc(iso(r.from))} → ${esc(iso(r.to))} (market time); ${r.candlesRecorded} candles recorded; ${c.matched} orders matched.</p>
${verdict}
<h2>Differences by cause</h2><table><thead><tr><th>cause</th><th>only live</th><th>only replay</th><th>different</th></tr></thead><tbody>${causeRows}</tbody></table>
<h2>Daemon down</h2>${down}
<h2>Data drift</h2>${data}
${sections}
<p>How to read this report: docs/drift.md.</p></body></html>
`;
}

export async function writeDriftReport(dir: string, r: DriftResult, threshold: number): Promise<{ json: string; html: string }> {
  await mkdir(dir, { recursive: true });
  const json = path.join(dir, 'drift.json');
  const html = path.join(dir, 'drift.html');
  await writeFile(json, `${JSON.stringify(driftJson(r, threshold), null, 2)}\n`);
  await writeFile(html, driftHtml(r, threshold));
  return { json, html };
}
