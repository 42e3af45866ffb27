import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { intervalSeconds, type Interval } from '../../domain/candle';
import { Decimal } from '../../domain/decimal';
import { escapeHtml } from '../report/html-escape';
import { formatPercent, formatRatio, formatTime } from '../report/format';
import { outOfMoneyCell } from '../report/out-of-money';
import { pageStart } from '../report/html-style';
import { renderLineChart } from '../report/svg-chart';
import type { SweepSetup } from '../sweep/sweep-types';
import type { FoldResult, WalkForwardResult } from './run-walk-forward';

/**
 * Writes `walk-forward.json` (setup, windows, every fold with its winner and test numbers, the
 * stitched out-of-sample curve and its numbers) and `walk-forward.html` (the stitched curve and the
 * folds table; self-contained like report.html) into `dir`.
 */
export async function writeWalkForward(dir: string, setup: SweepSetup, grid: Readonly<Record<string, unknown>>, r: WalkForwardResult, dataInterval: Interval): Promise<{ jsonPath: string; htmlPath: string }> {
  await mkdir(dir, { recursive: true });
  const jsonPath = join(dir, 'walk-forward.json');
  const htmlPath = join(dir, 'walk-forward.html');
  const s = r.stitched;
  const json = {
    formatVersion: 1, setup, grid, rankBy: r.rankBy, windows: r.windows, workers: r.workers,
    folds: r.folds.map((f) => ({ ...f, test: f.test === undefined ? undefined : { ...f.test, equity: undefined } })),
    outOfSample: {
      startEquity: s.startEquity.toString(), endEquity: s.endEquity.toString(), returnPct: s.returnPct, maxDrawdown: s.maxDrawdown.toString(),
      maxDrawdownPct: s.maxDrawdownPct, sharpe: s.sharpe, cagrPct: s.cagrPct,
      equity: s.equity.map((p) => ({ time: p.time, equity: p.equity.toString() })),
    },
  };
  await writeFile(jsonPath, `${JSON.stringify(json, null, 2)}\n`, 'utf8');
  await writeFile(htmlPath, renderWalkForwardHtml(setup, r, dataInterval), 'utf8');
  return { jsonPath, htmlPath };
}

/** The folds as printed on stdout. */
export function formatFolds(r: WalkForwardResult): string {
  const header = ['fold', 'train', 'test', 'best params', `train ${r.rankBy}`, 'test netPnl', 'test return', 'test maxDD', 'trades', 'denied', 'money', 'strategy'];
  const rows = r.folds.map((f) => [String(f.fold.index + 1), span(f.fold.trainFrom, f.fold.trainTo), span(f.fold.testFrom, f.fold.testTo), ...foldCells(f)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ').trimEnd();
  const s = r.stitched;
  return `${[line(header), ...rows.map(line)].join('\n')}\nout of sample: return ${formatPercent(s.returnPct)}, max drawdown ${formatPercent(s.maxDrawdownPct)}, sharpe ${formatRatio(s.sharpe)}, CAGR ${formatPercent(s.cagrPct)} (${s.equity.length} points)\n`;
}

function foldCells(f: FoldResult): string[] {
  if (f.best === undefined) return [`(none: ${f.skipped ?? ''})`, '', '', '', '', '', '', '', ''];
  const t = f.test;
  const m = t?.metrics;
  const health = t?.error !== undefined ? `error: ${t.error}` : t?.strategy?.failed === true ? `FAILED (${t.strategy.errors} errors, ${t.strategy.overruns} overruns)` : 'ok';
  return [JSON.stringify(f.best.params), value(f.best.trainValue), value(m?.['netPnl']), pct(m?.['returnPct']), pct(m?.['maxDrawdownPct']), String(m?.['tradeCount'] ?? ''), String(t?.orders?.denied ?? ''), t === undefined || t.error !== undefined ? '' : outOfMoneyCell(t.outOfMoney), health];
}

/** A metric for the table: money to 2 decimals, ratios to 3 (the exact values are in walk-forward.json). */
function value(v: string | number | null | undefined): string {
  if (v === undefined || v === null) return 'n/a';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(3);
  return /^-?\d+(\.\d+)?$/.test(v) ? new Decimal(v).toFixed(2) : v;
}

function pct(v: string | number | null | undefined): string {
  return typeof v === 'number' ? formatPercent(v) : '';
}

function span(from: number, to: number): string {
  return `${formatTime(from)}..${formatTime(to).slice(5)}`;
}

function renderWalkForwardHtml(setup: SweepSetup, r: WalkForwardResult, dataInterval: Interval): string {
  const s = r.stitched;
  const title = `Walk-forward: ${setup.strategy} on ${setup.data.map((d) => d.market).join(', ')}`;
  const chart = renderLineChart({
    id: 'oos-equity-chart', className: 'equity', height: 300, title: 'Stitched out-of-sample equity', yLabel: 'equity',
    times: s.equity.map((p) => p.time), values: s.equity.map((p) => p.equity.toNumber()), maxStep: intervalSeconds(dataInterval) * 1.5,
  });
  const rows = r.folds.map((f) => `<tr>${[String(f.fold.index + 1), span(f.fold.trainFrom, f.fold.trainTo), span(f.fold.testFrom, f.fold.testTo), ...foldCells(f)]
    .map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`);
  return `${pageStart(title)}<p class="sub">grid ${escapeHtml(JSON.stringify(r.windows))} · ranked by ${escapeHtml(r.rankBy)} · each test window starts flat with the starting balances after a warm-up, and the curves are chained by their returns</p>
<h2>Out of sample</h2>
<p id="oos-summary">return ${formatPercent(s.returnPct)} · max drawdown ${formatPercent(s.maxDrawdownPct)} · Sharpe ${formatRatio(s.sharpe)} · CAGR ${formatPercent(s.cagrPct)}</p>
<div class="chart">${chart}</div>
<h2>Folds</h2>
<div class="scroll"><table id="folds"><thead><tr>${['fold', 'train', 'test', 'best params', `train ${r.rankBy}`, 'test net PnL', 'test return', 'test max DD', 'trades', 'denied', 'money', 'strategy'].map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.join('\n')}</tbody></table></div>
</main>
</body>
</html>
`;
}
