import type { Candle } from '../../domain/candle';
import type { Decimal } from '../../domain/decimal';
import { decimalAtLeast, decimalAtMost } from '../../domain/decimal-compare';
import type { MarketName } from '../../domain/market';
import type { MarketState } from './market-state';
import type { FillModel } from '../../domain/fill-model';
import { Liquidity } from './liquidity';
import { crossedAtOpen, nextPathEvent, type PathEvent } from './matching';
import type { OrderBook } from './order-book';
import type { OrderExecution } from './order-execution';
import { candlePath } from './price-path';
import type { MarketReach } from './order-book';
import { CLOSE, ColumnCandle, HIGH, LOW, OPEN } from '../../candle-files/csv-columns';

/**
 * Relative margin of the test on doubles: a level and a candle value that are decimals of up to 15
 * significant digits are exact doubles, and longer ones are within an ulp (~1e-16): with this
 * margin the test on doubles never says "no" where the exact one says "yes".
 */
const MARGIN = 1e-12;

/**
 * `canReach` on a candle read from CSV columns: its values as the exact doubles the columns hold,
 * no Decimal built (a year of 1m candles with an order waiting on most of them). Conservative, as
 * the exact test: a "yes" only costs the path walk, which decides exactly.
 */
function canReachOnDoubles(reach: MarketReach, candle: ColumnCandle, previous: number | undefined): boolean {
  const open = candle.value(OPEN);
  const close = candle.value(CLOSE);
  // The previous price counts as a point of the path (a NaN one, when there is none, never reaches).
  const before = previous ?? Number.NaN;
  if (reach.up !== undefined && reach.upF <= Math.max(candle.value(HIGH), open, close, Number.isNaN(before) ? open : before) * (1 + MARGIN)) return true;
  if (reach.down !== undefined && reach.downF >= Math.min(candle.value(LOW), open, close, Number.isNaN(before) ? open : before) * (1 - MARGIN)) return true;
  return false;
}

/** What the engine applies: a closed 1m candle with its traded volume (stock currency). */
export type EngineCandle = Pick<Candle, 'time' | 'open' | 'high' | 'low' | 'close' | 'volume'>;

/**
 * Applies closed candles to a market's open orders (FILL-MODEL.md): the jump from the previous price
 * to the open first (orders it crossed act AT the open, the first price that traded beyond them),
 * then the continuous path open -> nearer extreme -> other extreme -> close, each order acting where
 * the path reaches its level. Fills share the candle's liquidity (a share of its volume); once it is
 * used up only triggers happen, and what is left of an order fills from the next candle's open on.
 */
export class CandleWalk {
  constructor(
    private readonly book: OrderBook,
    private readonly execution: OrderExecution,
    private readonly model: FillModel,
  ) {}

  /** The liquidity arriving orders of the market may take now (the last candle's share, until the next candle). */
  arrivalLiquidity(state: MarketState): Liquidity {
    if (this.model.volumeShare === null) return Liquidity.unlimited();
    // Before the first candle there is no volume to take a share of: arriving orders wait for one.
    state.arrival ??= state.lastVolume === undefined ? Liquidity.none() : Liquidity.ofVolume(state.lastVolume, this.model.volumeShare);
    return state.arrival;
  }

  /**
   * Whether the path of `candle` (from `previous`, through open, high, low and close) reaches the lowest
   * rising-side level or the highest falling-side level of the market's open orders. A conservative
   * test: when it says no, walking the path would find no event. Orders crossed at the start (the
   * rest of a fill that ran out of volume) lie beyond the whole candle, so they always count.
   */
  canReach(market: MarketName, candle: EngineCandle, state: MarketState): boolean {
    const reach = this.book.reach(market);
    if (candle instanceof ColumnCandle) return canReachOnDoubles(reach, candle, state.pathPriceNumber());
    const previous = state.pathPrice;
    const { up, down } = reach;
    if (up !== undefined && (decimalAtMost(up, candle.high) || decimalAtMost(up, candle.open) || decimalAtMost(up, candle.close)
      || (previous !== undefined && decimalAtMost(up, previous)))) return true;
    if (down !== undefined && (decimalAtLeast(down, candle.low) || decimalAtLeast(down, candle.open) || decimalAtLeast(down, candle.close)
      || (previous !== undefined && decimalAtLeast(down, previous)))) return true;
    return false;
  }

  /**
   * Walks the candle from where the last one ended; events are stamped `time`. The jump from the
   * previous price to the open is not walked: nothing traded inside it, so what it crossed acts at
   * the open (resting limits fill there as maker; stops trigger there and fill as taker if their
   * limit allows it at the open).
   */
  walk(market: MarketName, candle: EngineCandle, time: number): void {
    const liquidity = Liquidity.ofVolume(candle.volume, this.model.volumeShare);
    for (;;) {
      const event = crossedAtOpen(this.book.openInMarketLive(market), candle.open, liquidity.available);
      if (event === undefined) break;
      this.act(event, time, liquidity);
    }
    const path = candlePath(candle, undefined);
    let current = candle.open;
    for (let i = 1; i < path.length; i++) {
      const target = path[i] as Decimal;
      for (;;) {
        // Read live (no copy): nothing changes while nextPathEvent scans, only after it returns.
        const event = nextPathEvent(this.book.openInMarketLive(market), current, target, liquidity.available);
        if (event === undefined) break;
        current = event.level;
        this.act(event, time, liquidity);
      }
      current = target;
    }
  }

  private act(event: PathEvent, time: number, liquidity: Liquidity): void {
    if (event.kind === 'fill') this.execution.fill(event.order, event.level, 1, time, liquidity);
    else this.execution.trigger(event.order, event.level, time, liquidity);
  }
}
