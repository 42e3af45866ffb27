import type { BacktestOutcome } from './run-backtest';

/** The few lines `tradebot backtest` prints after a run (the full numbers are in report.json). */
export function formatSummary(outcome: BacktestOutcome, files?: { jsonPath: string; htmlPath: string }): string {
  const m = outcome.result.metrics;
  const orders = outcome.replay.orders;
  const count = (o: string) => orders.filter((e) => e.outcome === o && e.kind !== 'cancel').length;
  const pct = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(2)} %`);
  const num = (v: number | null) => (v === null ? 'n/a' : Number.isFinite(v) ? v.toFixed(2) : String(v));
  const lines = [
    `strategy     ${outcome.strategy.name} (${outcome.strategy.interval}) ${JSON.stringify(outcome.strategy.params)}`,
    `period       ${iso(m.startTime)} .. ${iso(m.endTime)}, ${outcome.replay.candleCount} data candles, ${outcome.replay.strategyCandles} strategy candles`,
    `orders       ${count('placed')} placed, ${count('denied')} denied, ${count('rejected')} rejected; ${orders.filter((e) => e.outcome === 'canceled').length} canceled; ${outcome.replay.fills.length} fills`,
    `net PnL      ${m.netPnl.toDecimalPlaces(2).toString()} (${pct(m.returnPct)}), fees ${m.totalFees.toDecimalPlaces(2).toString()}`,
    `drawdown     ${m.maxDrawdown.toDecimalPlaces(2).toString()} (${m.maxDrawdownPct.toFixed(2)} %)`,
    `trades       ${m.tradeCount}, win rate ${m.winRate === null ? 'n/a' : `${(m.winRate * 100).toFixed(1)} %`}, profit factor ${num(m.profitFactor)}`,
    `sharpe       ${num(m.sharpe)}, sortino ${num(m.sortino)}, exposure ${(m.exposure * 100).toFixed(1)} %`,
  ];
  if (files !== undefined) lines.push(`report       ${files.htmlPath}`, `             ${files.jsonPath}`);
  return `${lines.join('\n')}\n`;
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}
