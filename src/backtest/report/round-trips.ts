import { Decimal } from '../../domain/decimal';
import { BacktestInputError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import type { BacktestFill, FillAction, OpenPosition, RoundTripTrade, TradeDirection } from './types';

/** Result of matching fills into round trips. */
export interface RoundTrips {
  /** The fills sorted by time (stable: equal times keep their input order). */
  readonly fills: readonly BacktestFill[];
  /** What each sorted fill did to its market's position. */
  readonly fillActions: readonly FillAction[];
  /** Closed trades, in order of exit. */
  readonly trades: readonly RoundTripTrade[];
  readonly openPositions: readonly OpenPosition[];
}

interface Lot {
  amount: Decimal;
  readonly price: Decimal;
}

/** The trade being built in one market, from the fill that left flat until the one that returns to flat. */
interface Building {
  readonly direction: TradeDirection;
  readonly entryTime: number;
  readonly lots: Lot[];
  entered: Decimal;
  entryNotional: Decimal;
  exited: Decimal;
  exitNotional: Decimal;
  grossPnl: Decimal;
  fees: Decimal;
  fillCount: number;
}

/**
 * Matches fills into round-trip trades per market, FIFO: a fill in the position's direction adds
 * a lot; an opposite fill closes the oldest lots first. When the position returns to flat the
 * trade is closed. A fill larger than the position closes the trade and opens the next one in
 * the other direction with the remainder; its fee is split pro rata by amount (the remainder gets
 * fee − closing part, so trade fees always add up to the fills' fees exactly).
 * Throws BacktestInputError on a non-positive amount or price, a negative fee or a non-finite time.
 */
export function buildRoundTrips(input: readonly BacktestFill[]): RoundTrips {
  input.forEach(validateFill);
  const fills = input
    .map((fill, index) => ({ fill, index }))
    .sort((a, b) => a.fill.time - b.fill.time || a.index - b.index)
    .map(({ fill }) => fill);

  const building = new Map<MarketName, Building>();
  const trades: RoundTripTrade[] = [];
  const fillActions: FillAction[] = [];
  const close = (market: MarketName, t: Building, exitTime: number): void => {
    trades.push(finish(trades.length + 1, market, t, exitTime));
    building.delete(market);
  };

  for (const fill of fills) {
    const fillDirection: TradeDirection = fill.side === 'buy' ? 'long' : 'short';
    const current = building.get(fill.market);
    if (current === undefined || current.direction === fillDirection) {
      const t = current ?? open(fill, fillDirection, fill.amount, fill.fee);
      if (current !== undefined) addEntry(t, fill.amount, fill.price, fill.fee);
      building.set(fill.market, t);
      fillActions.push('entry');
      continue;
    }
    const closed = reduce(current, fill.amount, fill.price);
    const remainder = fill.amount.minus(closed);
    const closingFee = remainder.isZero() ? fill.fee : fill.fee.times(closed).dividedBy(fill.amount);
    current.fees = current.fees.plus(closingFee);
    current.fillCount += 1;
    if (current.lots.length === 0) close(fill.market, current, fill.time);
    if (remainder.isZero()) {
      fillActions.push('exit');
    } else {
      building.set(fill.market, open(fill, fillDirection, remainder, fill.fee.minus(closingFee)));
      fillActions.push('flip');
    }
  }

  const openPositions: OpenPosition[] = [...building.entries()].map(([market, t]) => {
    const amount = t.lots.reduce((sum, lot) => sum.plus(lot.amount), new Decimal(0));
    const cost = t.lots.reduce((sum, lot) => sum.plus(lot.amount.times(lot.price)), new Decimal(0));
    return { market, direction: t.direction, entryTime: t.entryTime, amount, entryPrice: cost.dividedBy(amount), fees: t.fees };
  });
  return { fills, fillActions, trades, openPositions };
}

function open(fill: BacktestFill, direction: TradeDirection, amount: Decimal, fee: Decimal): Building {
  const t: Building = {
    direction,
    entryTime: fill.time,
    lots: [],
    entered: new Decimal(0),
    entryNotional: new Decimal(0),
    exited: new Decimal(0),
    exitNotional: new Decimal(0),
    grossPnl: new Decimal(0),
    fees: new Decimal(0),
    fillCount: 0,
  };
  addEntry(t, amount, fill.price, fee);
  return t;
}

function addEntry(t: Building, amount: Decimal, price: Decimal, fee: Decimal): void {
  t.lots.push({ amount, price });
  t.entered = t.entered.plus(amount);
  t.entryNotional = t.entryNotional.plus(amount.times(price));
  t.fees = t.fees.plus(fee);
  t.fillCount += 1;
}

/** Closes up to `amount` from the oldest lots at `price`; returns the amount actually closed. */
function reduce(t: Building, amount: Decimal, price: Decimal): Decimal {
  let left = amount;
  while (!left.isZero() && t.lots.length > 0) {
    const lot = t.lots[0] as Lot;
    const q = Decimal.min(lot.amount, left);
    const perUnit = t.direction === 'long' ? price.minus(lot.price) : lot.price.minus(price);
    t.grossPnl = t.grossPnl.plus(perUnit.times(q));
    t.exited = t.exited.plus(q);
    t.exitNotional = t.exitNotional.plus(q.times(price));
    lot.amount = lot.amount.minus(q);
    left = left.minus(q);
    if (lot.amount.isZero()) t.lots.shift();
  }
  return amount.minus(left);
}

function finish(id: number, market: MarketName, t: Building, exitTime: number): RoundTripTrade {
  const netPnl = t.grossPnl.minus(t.fees);
  return {
    id,
    market,
    direction: t.direction,
    entryTime: t.entryTime,
    exitTime,
    amount: t.entered,
    entryPrice: t.entryNotional.dividedBy(t.entered),
    exitPrice: t.exitNotional.dividedBy(t.exited),
    grossPnl: t.grossPnl,
    fees: t.fees,
    netPnl,
    returnRatio: netPnl.dividedBy(t.entryNotional).toNumber(),
    fillCount: t.fillCount,
  };
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
