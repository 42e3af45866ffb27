import { strategyFailed, type StrategyHealth } from '../replay/strategy-health';
import type { OutcomeGroup } from '../replay/order-outcomes';
import { escapeHtml } from './html-escape';
import { formatTime } from './format';
import type { RunContext, RunSettings } from './types';

/**
 * The report sections that come from the backtester rather than from the fills: how the strategy
 * fared (a failed run is stated first, in red), what happened to the orders (denials by rule,
 * rejections with the venue's explanation), the rules in force and the run's settings. Every
 * input string is escaped.
 */

/** A banner at the top: the run failed (with why), or it ran clean. */
export function healthBanner(context: RunContext | undefined): string {
  if (context === undefined) return '';
  const failed = context.health.filter(strategyFailed);
  if (failed.length === 0) return '<p class="ok" id="run-health" data-failed="false">The strategy ran without a failure: no error, no overrun, no pause.</p>';
  const lines = failed.map((h) => `${escapeHtml(h.strategy)}: ${escapeHtml(healthText(h))}`);
  return `<div class="alert" id="run-health" data-failed="true"><strong>The strategy failed during this run</strong>: its results are not what it would do live.<br>${lines.join('<br>')}</div>`;
}

/** "3 errors (threw 3), 0 overruns (budget 250 ms), paused after 5 consecutive failures at 2021-..." */
export function healthText(h: StrategyHealth): string {
  const reasons = Object.entries(h.errorsByReason).map(([k, v]) => `${k} ${v}`).join(', ');
  const pause = h.pauses === 0 ? 'never paused' : `paused after ${h.pauseAfter} consecutive failures at ${h.pausedAt === undefined ? '?' : `${formatTime(h.pausedAt)} UTC`} (no trading after it)`;
  return `${h.calls} calls, ${h.errors} errors${reasons === '' ? '' : ` (${reasons})`}, ${h.overruns} overruns (budget ${h.budgetMs} ms), ${pause}`;
}

export function healthSection(context: RunContext | undefined): string {
  if (context === undefined) return '';
  const rows = context.health.map((h) => `<tr><td>${escapeHtml(h.strategy)}</td><td>${h.calls}</td><td>${h.intents}</td><td>${h.errors}</td><td>${h.overruns}</td><td>${h.pauses}</td></tr>`);
  const samples = context.health.flatMap((h) => h.samples.map((f) =>
    `<tr><td>${escapeHtml(h.strategy)}</td><td>${formatTime(f.candleTime)}</td><td>${escapeHtml(f.market)}</td><td>${escapeHtml(f.reason)}</td><td class="wrap">${escapeHtml(f.message)}</td></tr>`));
  const log = context.logFile === undefined ? '' : `<p class="note">ctx.log output and failures with their stack: <code>${escapeHtml(context.logFile)}</code></p>`;
  return `<h2>Strategy</h2>
<div class="scroll"><table id="strategy-health"><thead><tr><th>Strategy</th><th>onCandle calls</th><th>Intents</th><th>Errors</th><th>Overruns</th><th>Pauses</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>
${samples.length === 0 ? '' : `<h3>First failures</h3><div class="scroll"><table id="strategy-failures"><thead><tr><th>Strategy</th><th>Candle (UTC)</th><th>Market</th><th>Reason</th><th class="wrap">Message</th></tr></thead><tbody>${samples.join('')}</tbody></table></div>`}
${log}`;
}

export function ordersSection(context: RunContext | undefined): string {
  if (context === undefined) return '';
  const o = context.orders;
  const groups = (id: string, title: string, list: readonly OutcomeGroup[]): string => list.length === 0 ? '' : `<h3>${title}</h3>
<div class="scroll"><table id="${id}"><thead><tr><th>Reason</th><th>Count</th><th>First (UTC)</th><th class="wrap">Example</th></tr></thead><tbody>${list.map((g) =>
    `<tr><td>${escapeHtml(g.key)}</td><td>${g.count}</td><td>${formatTime(g.firstTime)}</td><td class="wrap">${escapeHtml(g.example)}</td></tr>`).join('')}</tbody></table></div>`;
  return `<h2>Orders</h2>
<p id="order-counts" data-placed="${o.placed}" data-denied="${o.denied}" data-rejected="${o.rejected}">${o.placed} placed, ${o.denied} denied before sending (pre-trade rules), ${o.rejected} rejected by the exchange, ${o.canceled} canceled${o.cancelTooLate > 0 ? `, ${o.cancelTooLate} cancels too late (already finished)` : ''}.</p>
${groups('denied-by-rule', 'Denied, by rule', o.deniedBy)}
${groups('rejected-by-reason', 'Rejected by the exchange, by reason', o.rejectedBy)}`;
}

/** When each guardrail tripped and lifted, and what it kept from the exchange (docs/risk.md). */
export function guardrailsSection(context: RunContext | undefined): string {
  const g = context?.guardrails;
  if (g === undefined) return '';
  const events = g.events.map((e) => `<tr><td>${formatTime(e.time)}</td><td>${e.type === 'tripped' ? 'tripped' : `lifted (${e.by === 'operator' ? 'operator' : 'its time passed'})`}</td>`
    + `<td>${escapeHtml(e.guard)}</td><td>${escapeHtml(e.scope)}</td><td>${e.action === 'halt' ? 'halt' : 'no entries'}</td><td class="wrap">${escapeHtml(e.reason)}</td></tr>`);
  const prevented = g.prevented.map((p) => `<tr><td>${escapeHtml(p.rule)}</td><td>${p.intents}</td><td>${escapeHtml(p.notional)}</td><td>${formatTime(p.firstTime)}</td></tr>`);
  return `<h2>Guardrails</h2>
${events.length === 0 ? '<p id="guardrail-events">No guardrail tripped.</p>' : `<div class="scroll"><table id="guardrail-events"><thead><tr><th>Time (UTC)</th><th>Event</th><th>Guard</th><th>Scope</th><th>Stops</th><th class="wrap">Why</th></tr></thead><tbody>${events.join('')}</tbody></table></div>`}
${prevented.length === 0 ? '' : `<h3>What they prevented</h3><div class="scroll"><table id="guardrail-prevented"><thead><tr><th>Rule</th><th>Intents denied</th><th>Their notional</th><th>First (UTC)</th></tr></thead><tbody>${prevented.join('')}</tbody></table></div>`}`;
}

export function rulesSection(context: RunContext | undefined): string {
  if (context === undefined) return '';
  return `<h2>Rules in force</h2><ul class="rules" id="assumptions">${context.assumptions.map((a) => `<li>${escapeHtml(a)}</li>`).join('')}</ul>`;
}

export function settingsSection(context: RunContext | undefined): string {
  if (context === undefined) return '';
  const s: RunSettings = context.settings;
  const rows: Array<[string, string]> = [
    ['Strategy', `${s.strategy.name} (${s.strategy.interval}), version ${s.strategy.version}`],
    ['Parameters', JSON.stringify(s.strategy.params).replace(/,"/g, ', "')],
    ...s.strategy.sources.map((f): [string, string] => ['Source', `${f.file} sha256 ${f.sha256}`]),
    ...s.data.map((d): [string, string] => [`Data ${d.market}`, `${d.file} sha256 ${d.sha256}, ${d.candles} candles of ${s.dataInterval}`]),
    ['Range asked', `${s.from === undefined ? 'start of the data' : `${formatTime(s.from)} UTC`} to ${s.to === undefined ? 'end of the data' : `${formatTime(s.to)} UTC (exclusive)`}`],
    ['Starting balances', Object.entries(s.startBalances).map(([k, v]) => `${v} ${k}`).join(', ')],
    ['Fees (maker / taker)', s.fees.map((f) => `${f.market} ${f.maker} / ${f.taker}`).join('; ')],
    ['Fill model', s.fillModel],
    ['Collateral mode', s.collateral],
    ['Risk (config risk section)', JSON.stringify(s.risk)],
    ['Strategy rules', `time budget ${s.strategyRules.timeBudgetMs} ms per onCandle (counted), pause after ${s.strategyRules.maxConsecutiveFailures} consecutive failures`],
  ];
  return `<h2>Run settings</h2><table id="settings" class="kv"><tbody>${rows.map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</tbody></table>`;
}
