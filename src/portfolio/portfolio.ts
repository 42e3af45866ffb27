import type { Clock } from '../core/clock';
import { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';
import type { OrderSide } from '../domain/order';
import { DailyPnl } from './daily-pnl';

/** One execution of one of our orders, as the venue reported it. */
export interface PortfolioFill {
  readonly strategy: string;
  readonly market: MarketName;
  readonly side: OrderSide;
  readonly amount: Decimal;
  /** The execution's (average) price. */
  readonly price: Decimal;
  /** Fee paid, in the market's money currency. */
  readonly fee: Decimal;
  /** When it executed (Unix ms) for today's PnL; default the clock's now; a fill of a past day is not today's. */
  readonly timeMs?: number | undefined;
  /**
   * A fill from before this process (the journal read at start-up): it moves the position, but its PnL
   * is not today's (when it was realised is not known) and it is no new fill to count.
   */
  readonly replayed?: boolean | undefined;
  /** The order that filled (the journal's fills carry it): names the fill for notifications and the console. */
  readonly clientOrderId?: string | undefined;
  /** The order's cumulative filled amount after this fill: with the order id, the same fill on every replica. */
  readonly filledAmount?: Decimal | undefined;
}

/**
 * This strategy's position on this market (`ctx.position`): `amount` in the stock currency (negative =
 * short, e.g. an OCO sell exit on the collateral account), the average entry price of what is held
 * (undefined when flat; fees not included), and the unrealised PnL at `lastPrice`:
 * amount x (lastPrice - average entry).
 */
export interface PositionView {
  readonly amount: Decimal;
  readonly averageEntry: Decimal | undefined;
  readonly unrealizedPnl: Decimal;
}

/** Everything the portfolio knows of one (strategy, market). */
export interface PositionState {
  readonly strategy: string;
  readonly market: MarketName;
  /** Signed amount held (stock currency). */
  readonly amount: Decimal;
  /** Average entry price of what is held; meaningless when amount is zero. */
  readonly averageEntry: Decimal;
  /** Realised PnL since the start, fees included (money currency). */
  readonly realizedPnl: Decimal;
  /** Fees paid since the start. */
  readonly fees: Decimal;
}

/** What one fill did to its position, as the portfolio accounted it (listeners and the round-trip book read it). */
export interface FillEffect {
  /** The signed position before the fill. */
  readonly before: Decimal;
  /** How much of the position the fill closed (0 when it opened or added to it). */
  readonly closed: Decimal;
  /** PnL realised on the closed amount before the fee: closed x (price - average entry), sign flipped for a short. */
  readonly gross: Decimal;
  /** What the fill realised: gross - fee. */
  readonly realized: Decimal;
}

interface Slot {
  readonly strategy: string;
  readonly market: MarketName;
  amount: Decimal;
  averageEntry: Decimal;
  /**
   * The cost basis of what is held: Σ amount x price of the entries, less the share closed. A close of
   * the whole position takes all of it, so the PnL of a position from flat to flat is exactly its exit
   * notional less its entry notional (no rounding of an average in it).
   */
  basis: Decimal;
  realizedPnl: Decimal;
  fees: Decimal;
}

const ZERO = new Decimal(0);
const FLAT: PositionView = Object.freeze({ amount: ZERO, averageEntry: undefined, unrealizedPnl: ZERO });

/**
 * The one read model of positions and PnL (nautilus `Portfolio`), fed by fills, for the backtest, paper
 * and live alike: `ctx.position`, the daily loss limit (`realizedToday`), the position metrics read it.
 * Pure: no I/O.
 *
 * The accounting rule (docs/strategies.md "Positions and PnL"), per (strategy, market), average cost:
 * - a fill in the direction of the position (or on a flat one) adds to it; the average entry is the
 *   amount-weighted average of those fills' prices (fees not included);
 * - a fill against the position closes that much of it at the average entry:
 *   realised += closed amount x (price - average entry) for a long, x (average entry - price) for a
 *   short; the average entry of what is left does not change; a fill larger than the position closes
 *   it and opens the rest the other way at the fill's price; the closed amount's share of the cost
 *   basis is closed x average entry, and closing the whole position takes the rest of the basis,
 *   so flat to flat is exactly exit notional - entry notional;
 * - every fill's fee is realised (a loss) when it is paid, entries included;
 * - unrealised = amount x (last price - average entry).
 */
export class Portfolio {
  private readonly slots = new Map<string, Slot>();
  private readonly daily: DailyPnl;
  private readonly listeners: ((state: PositionState, fill: PortfolioFill, realized: Decimal, effect: FillEffect) => void)[] = [];

  constructor(clock: Clock) {
    this.daily = new DailyPnl(clock);
  }

  /** Applies one execution; returns the PnL it realised (its fee included). */
  applyFill(f: PortfolioFill): Decimal {
    return this.applyFillEffect(f).realized;
  }

  /** `applyFill`, returning everything the fill did to its position. */
  applyFillEffect(f: PortfolioFill): FillEffect {
    const key = slotKey(f.strategy, f.market);
    let s = this.slots.get(key);
    if (s === undefined) {
      s = { strategy: f.strategy, market: f.market, amount: ZERO, averageEntry: ZERO, basis: ZERO, realizedPnl: ZERO, fees: ZERO };
      this.slots.set(key, s);
    }
    const signed = f.side === 'buy' ? f.amount : f.amount.negated();
    const before = s.amount;
    let closed = ZERO;
    let gross = ZERO;
    if (s.amount.isZero() || s.amount.isPositive() === signed.isPositive()) {
      const flat = s.amount.isZero();
      s.basis = flat ? f.amount.times(f.price) : s.basis.plus(f.amount.times(f.price));
      s.amount = s.amount.plus(signed);
      s.averageEntry = flat ? f.price : s.basis.dividedBy(s.amount.abs());
    } else {
      const long = s.amount.isPositive();
      const held = s.amount.abs();
      closed = Decimal.min(held, f.amount);
      // The closed share of the basis (closed x average entry); all of it when the position closes.
      const basisClosed = closed.eq(held) ? s.basis : s.basis.times(closed).dividedBy(held);
      const proceeds = closed.times(f.price);
      gross = long ? proceeds.minus(basisClosed) : basisClosed.minus(proceeds);
      s.basis = s.basis.minus(basisClosed);
      s.amount = s.amount.plus(signed);
      // Crossed zero: what is left of the fill opens a position the other way at its price.
      if (!s.amount.isZero() && s.amount.isPositive() !== long) {
        s.averageEntry = f.price;
        s.basis = s.amount.abs().times(f.price);
      }
    }
    const realized = f.fee.isZero() ? gross : gross.minus(f.fee);
    s.fees = s.fees.plus(f.fee);
    if (!realized.isZero()) {
      s.realizedPnl = s.realizedPnl.plus(realized);
      if (f.replayed !== true) this.daily.record({ amount: realized, timeMs: f.timeMs });
    }
    const effect: FillEffect = { before, closed, gross, realized };
    for (const listener of this.listeners) listener(s, f, realized, effect);
    return effect;
  }

  /** `ctx.position`: the position with its unrealised PnL at `lastPrice`. */
  position(strategy: string, market: MarketName, lastPrice: Decimal | undefined): PositionView {
    if (this.slots.size === 0) return FLAT;
    const s = this.slots.get(slotKey(strategy, market));
    if (s === undefined || s.amount.isZero()) return FLAT;
    const unrealizedPnl = lastPrice === undefined ? ZERO : s.amount.times(lastPrice.minus(s.averageEntry));
    return { amount: s.amount, averageEntry: s.averageEntry, unrealizedPnl };
  }

  /** Everything known of one (strategy, market); undefined before its first fill. */
  state(strategy: string, market: MarketName): PositionState | undefined {
    return this.slots.get(slotKey(strategy, market));
  }

  /** Every (strategy, market) with a fill, in order of first fill. */
  states(): readonly PositionState[] {
    return [...this.slots.values()];
  }

  /** Value of the position at `lastPrice` (signed, money currency). */
  exposure(strategy: string, market: MarketName, lastPrice: Decimal): Decimal {
    return this.slots.get(slotKey(strategy, market))?.amount.times(lastPrice) ?? ZERO;
  }

  /** Realised PnL of the current UTC day (of the clock), every strategy and market: what the daily loss limit reads. */
  realizedToday(): Decimal {
    return this.daily.today();
  }

  /** Called after every fill with the updated position and what the fill realised (metrics). */
  onFill(listener: (state: PositionState, fill: PortfolioFill, realized: Decimal, effect: FillEffect) => void): void {
    this.listeners.push(listener);
  }
}

function slotKey(strategy: string, market: MarketName): string {
  return `${strategy}|${market}`;
}
