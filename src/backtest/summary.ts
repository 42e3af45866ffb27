import { formatDuration } from './report/format';
import { healthText } from './report/html-run-sections';
import { strategyFailed } from './replay/strategy-health';
import type { BacktestOutcome } from './run-backtest';

/**
 * What `tradebot backtest` prints after a run (the full numbers are in report.json): the strategy
 * and its data, whether the strategy failed, what happened to the orders (denials by rule and
 * rejections with the exchange's reason), the results, and the rules in force that deny or reshape
 * orders by design.
 */
export function formatSummary(outcome: BacktestOutcome, files?: { jsonPath: string; htmlPath: string }): string {
  const m = outcome.result.metrics;
  const context = outcome.result.run.context;
  const pct = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(2)} %`);
  const num = (v: number | null) => (v === null ? 'n/a' : Number.isFinite(v) ? v.toFixed(2) : String(v));
  const lines = [
    `strategy     ${outcome.strategy.name} (${outcome.strategy.interval}) ${JSON.stringify(outcome.strategy.params)}${context === undefined ? '' : ` version ${context.settings.strategy.version}`}`,
    `period       ${iso(m.startTime)} .. ${iso(m.endTime)}, ${outcome.replay.candleCount} data candles, ${outcome.replay.strategyCandles} strategy candles`,
  ];
  for (const d of context?.settings.data ?? []) lines.push(`data         ${d.market} ${d.file} (sha256 ${d.sha256.slice(0, 12)}), ${d.candles} candles`);
  for (const h of outcome.replay.health) {
    lines.push(`health       ${strategyFailed(h) ? 'FAILED' : 'ok'}: ${healthText(h)}`);
    const first = h.samples[0];
    if (first !== undefined) lines.push(`             first failure ${iso(first.candleTime)} on ${first.market} (${first.reason}): ${first.message}`);
  }
  if (context !== undefined) {
    const o = context.orders;
    lines.push(`orders       ${o.placed} placed, ${o.denied} denied, ${o.rejected} rejected; ${o.canceled} canceled; ${outcome.replay.fills.length} fills`);
    for (const g of o.deniedBy) lines.push(`  denied     ${g.count} x ${g.key} (first ${iso(g.firstTime)}): ${g.example}`);
    for (const g of o.rejectedBy) lines.push(`  rejected   ${g.count} x ${g.key} (first ${iso(g.firstTime)}): ${g.example}`);
    const guards = context.guardrails;
    if (guards !== undefined) {
      const trips = guards.events.filter((e) => e.type === 'tripped');
      lines.push(`guardrails   ${trips.length === 0 ? 'none tripped' : `${trips.length} tripped: ${trips.map((e) => `${e.guard} ${e.scope} ${iso(e.time)}`).join(', ')}`}`);
      for (const p of guards.prevented) lines.push(`  prevented  ${p.intents} x ${p.rule}: ${p.notional} notional kept from the exchange`);
    }
  }
  lines.push(
    `net PnL      ${m.netPnl.toDecimalPlaces(2).toString()} (${pct(m.returnPct)}), fees ${m.totalFees.toDecimalPlaces(2).toString()}; buy and hold ${pct(m.benchmarkReturnPct)}`,
    `drawdown     ${m.maxDrawdown.toDecimalPlaces(2).toString()} (${m.maxDrawdownPct.toFixed(2)} %), CAGR ${pct(m.cagrPct)}, Calmar ${num(m.calmar)}`,
    `trades       ${m.tradeCount} (position round trips), win rate ${m.winRate === null ? 'n/a' : `${(m.winRate * 100).toFixed(1)} %`}, profit factor ${num(m.profitFactor)}, SQN ${num(m.sqn)}, average ${formatDuration(m.averageTradeSeconds)}; ${outcome.result.openPositions.length} open at the end`,
    `sharpe       ${num(m.sharpe)}, sortino ${num(m.sortino)}, exposure ${(m.exposure * 100).toFixed(1)} %`,
  );
  if (context !== undefined) {
    context.assumptions.forEach((a, i) => lines.push(`${i === 0 ? 'rules' : ''}`.padEnd(13) + a));
    if (context.logFile !== undefined) lines.push(`log          ${context.logFile}`);
  }
  if (files !== undefined) lines.push(`report       ${files.htmlPath}`, `             ${files.jsonPath}`);
  return `${lines.join('\n')}\n`;
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}
