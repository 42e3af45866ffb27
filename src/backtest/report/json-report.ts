import type { Decimal } from '../../domain/decimal';
import type { BacktestFill, BacktestMetrics, BacktestResult, OpenPosition, RoundTripTrade, RunContext } from './types';

/**
 * Bumped when a field changes meaning or disappears, so readers of old reports can tell.
 * 2: trades are one per entry (FIFO), with reasons and duration; run context, benchmark and new metrics added.
 * 3: `equity` holds the points at the strategy's interval, every fill's point and the drawdown
 *    extremes (all points with --full-curve), described by `equityCurve`; a trade is a position round
 *    trip (flat to flat) with the portfolio's PnL (average cost), not one entry matched FIFO.
 */
export const REPORT_FORMAT_VERSION = 3;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * The report as plain JSON values. Decimals become plain decimal strings (never floats);
 * ratios stay numbers, except non-finite ones (a profit factor of Infinity) which become the
 * strings "Infinity" / "-Infinity" / "NaN" because JSON has no such numbers. Candles are not
 * included (the backtester already has them); the full equity curve and fill list are.
 */
export function toReportJson(result: BacktestResult): Record<string, Json> {
  return { ...reportHead(result), equity: result.run.equity.map((p) => ({ time: p.time, equity: p.equityText === undefined ? p.equity.toString() : p.equityText() })) };
}

/** Everything but the equity curve (the last key, written point by point). */
function reportHead(result: BacktestResult): Record<string, Json> {
  const { run } = result;
  return {
    formatVersion: REPORT_FORMAT_VERSION,
    title: run.title ?? null,
    quoteCurrency: run.quoteCurrency,
    interval: run.interval,
    markets: Object.keys(run.candles),
    startBalances: Object.fromEntries(Object.entries(run.startBalances).map(([k, v]) => [k, v.toString()])),
    metrics: metricsJson(result.metrics),
    ...(run.context === undefined ? {} : contextJson(run.context)),
    benchmark: {
      description: result.benchmark.description, endEquity: result.benchmark.endEquity?.toString() ?? null,
      returnPct: jsonValue(result.benchmark.returnPct), maxDrawdownPct: jsonValue(result.benchmark.maxDrawdownPct),
    },
    trades: result.trades.map(tradeJson),
    openPositions: result.openPositions.map(openJson),
    fills: result.fills.map((f, i) => fillJson(f, result.fillActions[i] ?? null)),
    equityCurve: curveJson(result),
  };
}

/** What `equity` holds: its spacing, and how many of the full curve's points it keeps. */
function curveJson(result: BacktestResult): Record<string, Json> {
  const { run } = result;
  const fullPoints = run.curve?.length ?? run.equity.length;
  return {
    resolution: run.curveInterval ?? run.interval,
    full: run.equity.length === fullPoints,
    points: run.equity.length,
    fullResolutionPoints: fullPoints,
  };
}

/** `toReportJson` as text, two-space indented, with a final newline. */
export function renderJson(result: BacktestResult): string {
  return [...renderJsonChunks(result)].join('');
}

const POINTS_PER_CHUNK = 4096;

/**
 * `renderJson` in pieces, the same bytes: the head through JSON.stringify, then the equity curve a
 * few thousand points at a time, so a year of 1m candles (40 MB of JSON) is never one string.
 */
export function* renderJsonChunks(result: BacktestResult): Generator<string> {
  const equity = result.run.equity;
  const head = JSON.stringify({ ...reportHead(result), equity: [] }, null, 2);
  if (equity.length === 0) {
    yield `${head}\n`;
    return;
  }
  yield `${head.slice(0, head.length - '[]\n}'.length)}[\n`;
  for (let start = 0; start < equity.length; start += POINTS_PER_CHUNK) {
    const end = Math.min(equity.length, start + POINTS_PER_CHUNK);
    let text = '';
    for (let i = start; i < end; i++) {
      const p = equity[i] as (typeof equity)[number];
      text += `${i === 0 ? '' : ',\n'}    {\n      "time": ${JSON.stringify(p.time)},\n      "equity": ${JSON.stringify(p.equityText === undefined ? p.equity.toString() : p.equityText())}\n    }`;
    }
    yield text;
  }
  yield '\n  ]\n}\n';
}

function metricsJson(m: BacktestMetrics): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(m) as Array<[string, Decimal | number | null]>) out[key] = jsonValue(value);
  return out;
}

function tradeJson(t: RoundTripTrade): Record<string, Json> {
  return {
    id: t.id,
    market: t.market,
    direction: t.direction,
    entryTime: t.entryTime,
    exitTime: t.exitTime,
    durationSeconds: t.durationSeconds,
    entryReason: t.entryReason,
    exitReason: t.exitReason,
    amount: t.amount.toString(),
    entryPrice: t.entryPrice.toString(),
    exitPrice: t.exitPrice.toString(),
    grossPnl: t.grossPnl.toString(),
    fees: t.fees.toString(),
    netPnl: t.netPnl.toString(),
    returnRatio: jsonValue(t.returnRatio),
    fillCount: t.fillCount,
  };
}

function openJson(p: OpenPosition): Record<string, Json> {
  return {
    market: p.market,
    direction: p.direction,
    entryTime: p.entryTime,
    amount: p.amount.toString(),
    entryPrice: p.entryPrice.toString(),
    fees: p.fees.toString(),
    realizedPnl: p.realizedPnl.toString(),
    entryReason: p.entryReason,
  };
}

/** The backtester's part: settings, how the strategy fared, what happened to the orders, the rules in force. */
function contextJson(c: RunContext): Record<string, Json> {
  return {
    settings: c.settings as unknown as Json,
    strategies: c.health as unknown as Json,
    orders: c.orders as unknown as Json,
    assumptions: [...c.assumptions],
    logFile: c.logFile ?? null,
    guardrails: (c.guardrails ?? null) as unknown as Json,
  };
}

function fillJson(f: BacktestFill, action: string | null): Record<string, Json> {
  return {
    time: f.time,
    market: f.market,
    side: f.side,
    amount: f.amount.toString(),
    price: f.price.toString(),
    fee: f.fee.toString(),
    clientOrderId: f.clientOrderId,
    role: f.role,
    orderKind: f.orderKind ?? null,
    action,
  };
}

function jsonValue(value: Decimal | number | null): Json {
  if (value === null) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  return value.toString();
}
