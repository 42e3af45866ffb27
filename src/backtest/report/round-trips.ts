import { Decimal } from '../../domain/decimal';
import { BacktestInputError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import type { BacktestFill, FillAction, OpenPosition, RoundTripTrade, TradeDirection } from './types';

/** Result of matching fills into trades. */
export interface RoundTrips {
  /** The fills sorted by time (stable: equal times keep their input order). */
  readonly fills: readonly BacktestFill[];
  /** What each sorted fill did to its market's position. */
  readonly fillActions: readonly FillAction[];
  /** Closed trades (one per entry), in order of exit. */
  readonly trades: readonly RoundTripTrade[];
  /** Entries still (partly) open at the end, oldest first per market. */
  readonly openPositions: readonly OpenPosition[];
}

/** One entry being closed: what is left of it and what its exits added up to so far. */
interface Entry {
  readonly market: MarketName;
  readonly direction: TradeDirection;
  readonly time: number;
  readonly amount: Decimal;
  readonly price: Decimal;
  readonly fee: Decimal;
  readonly reason: string;
  left: Decimal;
  exitNotional: Decimal;
  exitFees: Decimal;
  exitParts: number;
  lastExitTime: number;
  exitReasons: string[];
}

const ZERO = new Decimal(0);

/**
 * Matches fills into trades per market, FIFO, one trade per entry: a fill in the position's
 * direction (or on a flat market) is an entry; an opposite fill closes the oldest open entries
 * first, each part at the fill's price with the fill's fee pro rata by amount. An entry is a closed
 * trade once all of it is exited. A fill larger than the open position closes them all and is the
 * entry of a trade in the other direction with the remainder (fee split pro rata; the parts add up
 * to the fill's fee exactly). Throws BacktestInputError on a non-positive amount or price, a
 * negative fee or a non-finite time.
 */
export function buildRoundTrips(input: readonly BacktestFill[]): RoundTrips {
  input.forEach(validateFill);
  const fills = input
    .map((fill, index) => ({ fill, index }))
    .sort((a, b) => a.fill.time - b.fill.time || a.index - b.index)
    .map(({ fill }) => fill);

  const open = new Map<MarketName, Entry[]>();
  const closed: { trade: Omit<RoundTripTrade, 'id'>; order: number }[] = [];
  const fillActions: FillAction[] = [];
  let order = 0;

  for (const fill of fills) {
    const direction: TradeDirection = fill.side === 'buy' ? 'long' : 'short';
    const entries = open.get(fill.market) ?? [];
    open.set(fill.market, entries);
    if (entries.length === 0 || (entries[0] as Entry).direction === direction) {
      entries.push(newEntry(fill, direction, fill.amount, fill.fee));
      fillActions.push('entry');
      continue;
    }
    let left = fill.amount;
    let feeLeft = fill.fee;
    while (!left.isZero() && entries.length > 0) {
      const e = entries[0] as Entry;
      const q = Decimal.min(e.left, left);
      // The last part of a fill takes the rest of its fee, so the parts add up to it exactly.
      const fee = q.eq(left) ? feeLeft : fill.fee.times(q).dividedBy(fill.amount);
      e.left = e.left.minus(q);
      e.exitNotional = e.exitNotional.plus(q.times(fill.price));
      e.exitFees = e.exitFees.plus(fee);
      e.exitParts++;
      e.lastExitTime = fill.time;
      const reason = reasonOf(fill);
      if (!e.exitReasons.includes(reason)) e.exitReasons.push(reason);
      left = left.minus(q);
      feeLeft = feeLeft.minus(fee);
      if (e.left.isZero()) {
        entries.shift();
        closed.push({ trade: finish(e), order: order++ });
      }
    }
    if (left.isZero()) fillActions.push('exit');
    else {
      entries.push(newEntry(fill, direction, left, feeLeft));
      fillActions.push('flip');
    }
  }

  const trades = closed
    .sort((a, b) => a.trade.exitTime - b.trade.exitTime || a.order - b.order)
    .map(({ trade }, i) => ({ id: i + 1, ...trade }));
  const openPositions: OpenPosition[] = [...open.values()].flat().map((e) => {
    const exited = e.amount.minus(e.left);
    const openFee = e.fee.times(e.left).dividedBy(e.amount);
    return {
      market: e.market, direction: e.direction, entryTime: e.time, amount: e.left, entryPrice: e.price, fees: openFee,
      realizedPnl: exited.isZero() ? ZERO : gross(e, exited).minus(e.fee.minus(openFee)).minus(e.exitFees), entryReason: e.reason,
    };
  });
  return { fills, fillActions, trades, openPositions };
}

function newEntry(fill: BacktestFill, direction: TradeDirection, amount: Decimal, fee: Decimal): Entry {
  return {
    market: fill.market, direction, time: fill.time, amount, price: fill.price, fee, reason: reasonOf(fill),
    left: amount, exitNotional: ZERO, exitFees: ZERO, exitParts: 0, lastExitTime: fill.time, exitReasons: [],
  };
}

/** Gross PnL of `exited` of the entry at its average exit price so far. */
function gross(e: Entry, exited: Decimal): Decimal {
  const entryNotional = exited.times(e.price);
  return e.direction === 'long' ? e.exitNotional.minus(entryNotional) : entryNotional.minus(e.exitNotional);
}

function finish(e: Entry): Omit<RoundTripTrade, 'id'> {
  const grossPnl = gross(e, e.amount);
  const fees = e.fee.plus(e.exitFees);
  const netPnl = grossPnl.minus(fees);
  return {
    market: e.market, direction: e.direction, entryTime: e.time, exitTime: e.lastExitTime, durationSeconds: e.lastExitTime - e.time,
    amount: e.amount, entryPrice: e.price, exitPrice: e.exitNotional.dividedBy(e.amount), grossPnl, fees, netPnl,
    returnRatio: netPnl.dividedBy(e.amount.times(e.price)).toNumber(), fillCount: 1 + e.exitParts,
    entryReason: e.reason, exitReason: e.exitReasons.join(' + '),
  };
}

const KIND_TEXT = { stop_limit: 'stop-limit', oco_take_profit: 'OCO take-profit', oco_stop_loss: 'OCO stop-loss' } as const;

/** "stop-limit buy", "OCO take-profit sell", or the side alone when the order kind is unknown. */
function reasonOf(fill: BacktestFill): string {
  return fill.orderKind === undefined ? fill.side : `${KIND_TEXT[fill.orderKind]} ${fill.side}`;
}

function validateFill(fill: BacktestFill, index: number): void {
  const bad = (field: string, why: string): never => {
    throw new BacktestInputError(`fills[${index}].${field}: ${why}`, { field: `fills[${index}].${field}`, clientOrderId: fill.clientOrderId });
  };
  if (!Number.isFinite(fill.time)) bad('time', 'must be a finite Unix time in seconds');
  if (fill.side !== 'buy' && fill.side !== 'sell') bad('side', 'must be buy or sell');
  if (!fill.amount.isFinite() || fill.amount.lte(0)) bad('amount', 'must be > 0');
  if (!fill.price.isFinite() || fill.price.lte(0)) bad('price', 'must be > 0');
  if (!fill.fee.isFinite() || fill.fee.isNegative()) bad('fee', 'must be >= 0');
}
