import { ManualClock } from '../../core/clock';
import { Decimal } from '../../domain/decimal';
import { BacktestInputError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import { Portfolio } from '../../portfolio/portfolio';
import { RoundTripBook, type RoundTrip } from '../../portfolio/round-trips';
import type { BacktestFill, FillAction, OpenPosition, RoundTripTrade } from './types';

/** Result of matching fills into trades. */
export interface RoundTrips {
  /** The fills sorted by time (stable: equal times keep their input order). */
  readonly fills: readonly BacktestFill[];
  /** What each sorted fill did to its market's position. */
  readonly fillActions: readonly FillAction[];
  /** Closed trades (position round trips), in order of exit. */
  readonly trades: readonly RoundTripTrade[];
  /** Positions still open at the end, one per market, in order of opening. */
  readonly openPositions: readonly OpenPosition[];
}

/** What opened and closed the round trip in progress on a market, in words, and when it opened. */
interface TripNotes {
  readonly entryTime: number;
  readonly entry: string[];
  readonly exit: string[];
}

const ZERO = new Decimal(0);

/** The portfolio's strategy name for a report's fills (a backtest report is one strategy's). */
const STRATEGY = 'backtest';

/**
 * Groups the fills into trades per market: a trade is a position round trip, from flat (or the fill
 * that flipped the position) back to flat. The PnL is the portfolio's (src/portfolio/portfolio.ts,
 * average cost, every fee realised when paid): the fills go through a Portfolio and its RoundTripBook,
 * and nothing here computes PnL. A fill larger than the position closes the trip and opens the next
 * one the other way with the rest (its fee shared pro rata by amount). A position still open at the
 * end is an open position, not a trade. Throws BacktestInputError on a non-positive amount or price,
 * a negative fee or a non-finite time.
 */
export function buildRoundTrips(input: readonly BacktestFill[]): RoundTrips {
  input.forEach(validateFill);
  const fills = input
    .map((fill, index) => ({ fill, index }))
    .sort((a, b) => a.fill.time - b.fill.time || a.index - b.index)
    .map(({ fill }) => fill);

  const portfolio = new Portfolio(new ManualClock(0));
  const notes = new Map<MarketName, TripNotes>();
  const trades: RoundTripTrade[] = [];
  let current: BacktestFill | undefined;
  let closedNow = false;
  const book = new RoundTripBook(portfolio, (trip) => {
    const fill = current as BacktestFill;
    const n = notes.get(fill.market) as TripNotes;
    addReason(n.exit, fill);
    trades.push(tradeOf(trip, trades.length + 1, n, fill.time));
    notes.delete(fill.market);
    closedNow = true;
  });
  const fillActions: FillAction[] = [];
  for (const fill of fills) {
    current = fill;
    closedNow = false;
    portfolio.applyFill({ strategy: STRATEGY, market: fill.market, side: fill.side, amount: fill.amount, price: fill.price, fee: fill.fee });
    const action = book.lastAction();
    fillActions.push(action);
    if (action === 'exit') {
      if (!closedNow) addReason((notes.get(fill.market) as TripNotes).exit, fill);
      continue;
    }
    let n = notes.get(fill.market);
    if (n === undefined) notes.set(fill.market, (n = { entryTime: fill.time, entry: [], exit: [] }));
    addReason(n.entry, fill);
  }

  const openPositions: OpenPosition[] = book.openTrips().map((trip) => {
    const n = notes.get(trip.market) as TripNotes;
    const state = portfolio.state(STRATEGY, trip.market);
    return {
      market: trip.market, direction: trip.direction, entryTime: n.entryTime,
      amount: state === undefined ? ZERO : state.amount.abs(), entryPrice: state?.averageEntry ?? ZERO, fees: trip.fees,
      realizedPnl: trip.gross.minus(trip.fees), entryReason: n.entry.join(' + '),
    };
  });
  return { fills, fillActions, trades, openPositions };
}

function tradeOf(trip: RoundTrip, id: number, n: TripNotes, exitTime: number): RoundTripTrade {
  const netPnl = trip.gross.minus(trip.fees);
  return {
    id, market: trip.market, direction: trip.direction, entryTime: n.entryTime, exitTime, durationSeconds: exitTime - n.entryTime,
    amount: trip.entered, entryPrice: trip.entryNotional.dividedBy(trip.entered), exitPrice: trip.exitNotional.dividedBy(trip.exited),
    grossPnl: trip.gross, fees: trip.fees, netPnl, returnRatio: netPnl.dividedBy(trip.entryNotional).toNumber(), fillCount: trip.fills,
    entryReason: n.entry.join(' + '), exitReason: n.exit.join(' + '),
  };
}

function addReason(list: string[], fill: BacktestFill): void {
  const reason = reasonOf(fill);
  if (!list.includes(reason)) list.push(reason);
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
