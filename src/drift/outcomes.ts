import { Decimal } from '../domain/decimal';
import type { BacktestFill } from '../backtest/report';
import type { OrderLogEntry } from '../backtest/replay/order-log';
import type { DaemonRun } from '../store/deployment-log-port';
import type { OrderRecord, OrderTransitionEntry } from '../store/order-store-port';
import type { IntentOutcome } from './drift-types';

const ZERO = new Decimal(0);

/** The client order id without its leg (`-o`, `-sl`, `-tp`): one id per intent, the same live and in the replay. */
export function intentIdOf(clientOrderId: string): string {
  return clientOrderId.replace(/-(o|sl|tp)$/, '');
}

/**
 * Wall time -> market time from the runs' own marks (start and last heartbeat carry both clocks):
 * linear inside a run (the simulator's clock runs at a constant speed; live, both are the same).
 */
export function wallToMarket(runs: readonly DaemonRun[]): (atMs: number) => number | undefined {
  return (atMs) => {
    const run = runs.find((r) => atMs >= r.startedAtMs && atMs <= r.lastSeenAtMs + 60_000) ?? undefined;
    if (run === undefined) return undefined;
    const span = run.lastSeenAtMs - run.startedAtMs;
    const speed = span > 0 ? (run.lastSeenMarketMs - run.startedMarketMs) / span : 1;
    return run.startedMarketMs + (atMs - run.startedAtMs) * speed;
  };
}

/** A journal step's market time: as journaled, else estimated from the runs' marks (records from before it was kept). */
export function marketMsOf(entry: Pick<OrderTransitionEntry, 'atMs' | 'marketMs'>, toMarketMs: (atMs: number) => number | undefined): number | undefined {
  return entry.marketMs ?? toMarketMs(entry.atMs);
}

/** Journal records (one per order, two per OCO) -> one outcome per intent. */
export function liveOutcomes(records: readonly OrderRecord[], toMarketMs: (atMs: number) => number | undefined): IntentOutcome[] {
  const groups = new Map<string, OrderRecord[]>();
  for (const r of records) {
    const id = intentIdOf(r.clientOrderId);
    groups.set(id, [...(groups.get(id) ?? []), r]);
  }
  const out: IntentOutcome[] = [];
  for (const [intentId, legs] of groups) {
    const main = legs.find((r) => r.kind !== 'oco_tp') ?? legs[0]!;
    let filledAmount = ZERO;
    let filledMoney = ZERO;
    let fee = ZERO;
    let firstFillMs: number | undefined;
    for (const leg of legs) {
      filledAmount = filledAmount.plus(leg.filledAmount);
      filledMoney = filledMoney.plus(leg.filledMoney);
      fee = fee.plus(leg.fee);
      const fill = leg.history.find((h) => h.to === 'partially_filled' || h.to === 'filled');
      const at = fill === undefined ? undefined : marketMsOf(fill, toMarketMs);
      if (at !== undefined && (firstFillMs === undefined || at < firstFillMs)) firstFillMs = at;
    }
    out.push({
      intentId, strategy: main.strategy, market: main.market, candleTime: main.candleTime, kind: main.kind === 'stop_limit' ? 'stop_limit' : 'oco',
      side: main.side, amount: new Decimal(main.amount), price: new Decimal(main.price), filledAmount, filledMoney, fee,
      firstFillSec: firstFillMs === undefined ? undefined : Math.floor(firstFillMs / 1000),
      version: main.strategyVersion, params: main.strategyParams,
    });
  }
  return out;
}

/** Live outcomes as fills for the equity curve: each intent's fills at its first fill's time, at the average price. */
export function liveFills(outcomes: readonly IntentOutcome[]): BacktestFill[] {
  return outcomes
    .filter((o) => o.filledAmount.greaterThan(0) && o.firstFillSec !== undefined)
    .map((o) => ({
      time: o.firstFillSec!, market: o.market, side: o.side, amount: o.filledAmount, price: o.filledMoney.dividedBy(o.filledAmount), fee: o.fee,
      clientOrderId: o.intentId, role: 'taker' as const,
    }))
    .sort((a, b) => a.time - b.time);
}

/** The replay's placed orders and their fills -> one outcome per intent. */
export function replayOutcomes(orders: readonly OrderLogEntry[], fills: readonly BacktestFill[]): IntentOutcome[] {
  const fillsById = new Map<string, BacktestFill[]>();
  for (const f of fills) {
    const id = intentIdOf(f.clientOrderId);
    fillsById.set(id, [...(fillsById.get(id) ?? []), f]);
  }
  const out: IntentOutcome[] = [];
  for (const o of orders) {
    // A trailing stop's legs are stop-limits, one entry each with its own id (as in the journal).
    if (o.outcome !== 'placed' || o.clientOrderId === undefined || o.kind === 'cancel') continue;
    const intentId = intentIdOf(o.clientOrderId);
    const own = fillsById.get(intentId) ?? [];
    out.push({
      intentId, strategy: o.strategy, market: o.market, candleTime: o.candleTime, kind: o.kind === 'trailing_stop' ? 'stop_limit' : o.kind, side: o.side!, amount: o.amount!, price: o.price!,
      filledAmount: own.reduce((s, f) => s.plus(f.amount), ZERO),
      filledMoney: own.reduce((s, f) => s.plus(f.amount.times(f.price)), ZERO),
      fee: own.reduce((s, f) => s.plus(f.fee), ZERO),
      firstFillSec: own.length === 0 ? undefined : Math.floor(Math.min(...own.map((f) => f.time))),
    });
  }
  return out;
}
