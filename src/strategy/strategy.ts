import type { z } from 'zod';
import type { Balances, MarketInfo, MarketName } from '../domain/market';
import type { Candle, Interval } from '../domain/candle';
import type { Intent } from '../domain/intent';
import type { CandleSeries } from './candle-series';
import type { Indicators } from './indicators';
import type { OpenOrderView } from '../risk/open-order-view';
import type { OrderEvent, PositionView } from './order-feedback';

/**
 * The strategy module contract. A file in `strategies/` default-exports a StrategyDefinition,
 * usually through `defineStrategy({...})` so parameters and state are typed:
 *
 *   import { defineStrategy, Decimal, z } from 'tradebot/strategy';
 *   export default defineStrategy({
 *     name: 'my-strategy', markets: ['BTC_USDT'], interval: '1h', warmup: 20,
 *     params: z.object({ period: z.number().int().min(2).default(20) }),
 *     initState: ({ params, indicators }) => ({ sma: indicators.incremental.sma(params.period) }),
 *     onCandle(ctx) { ctx.state.sma.nextValue(ctx.candles.close(-1)); return []; },
 *   });
 *
 * See docs/strategies.md for the full reference.
 */

// Re-exported so a strategy file needs one import (and gets the project's Decimal, whose
// instances the host validates; the intents' Decimal fields are normalised to it anyway).
export { Decimal } from '../domain/decimal';
export { z } from 'zod';
export type { Intent, StopLimitIntent, OcoIntent, CancelIntent, TrailingStopIntent } from '../domain/intent';
export type { Candle, Interval } from '../domain/candle';
export type { OrderSide } from '../domain/order';
export type { MarketInfo, Balance, Balances, MarketName } from '../domain/market';
export type { CandleSeries } from './candle-series';
export type { Indicators, IncrementalIndicator, IncrementalIndicators } from './indicators';
export type { OpenOrderView } from '../risk/open-order-view';
export type { OrderEvent, OcoLeg, PositionView } from './order-feedback';
export { sizeForRisk, sizeForNotional } from './sizing';
export type { SizeResult, SizeLimit, SizeForRiskArgs, SizeForNotionalArgs } from './sizing';

/** The logger handed to strategies: the method subset of pino's Logger (a pino child logger fits). */
export interface StrategyLogger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

/** What `onCandle` gets. Everything is read-only except `state`, which is the strategy's own. */
export interface StrategyContext<P = Record<string, unknown>, S = Record<string, unknown>> {
  /** The strategy's name. */
  readonly strategy: string;
  readonly market: MarketName;
  readonly interval: Interval;
  /** The newest closed candle (same as `candles.at(-1)`). */
  readonly candle: Candle;
  /** The bounded window of closed candles, oldest first, newest included. */
  readonly candles: CandleSeries;
  /** technicalindicators plus `incremental` O(1) indicators (see indicators.ts). */
  readonly indicators: Indicators;
  /** Spot balances by currency, as last polled. Empty when unknown (e.g. a unit test). */
  readonly balances: Balances;
  /** This strategy's open orders on this market (OCO = one entry). */
  readonly openOrders: readonly OpenOrderView[];
  /** This strategy's position on this market from its own fills, valued at the newest close. */
  readonly position: PositionView;
  /**
   * What happened to this strategy's orders on this market since its previous `onCandle` call,
   * oldest first: fills, partial fills, cancels, rejections, risk denials (see OrderEvent).
   */
  readonly events: readonly OrderEvent[];
  /** Validated parameters: schema defaults merged with config overrides. */
  readonly params: P;
  readonly log: StrategyLogger;
  /** Market precision, minimums and fees, when the host knows them. */
  readonly marketInfo: MarketInfo | undefined;
  /** Per (strategy, market) object kept between calls, created by `initState` (or `{}`). */
  readonly state: S;
  /** Clock time of the call in ms (simulated in backtests). Use it, never Date.now(). */
  readonly nowMs: number;
}

/** Arguments of `initState`, called once per (strategy, market) before the first candle. */
export interface StrategyInitArgs<P> {
  readonly params: P;
  readonly market: MarketName;
  readonly indicators: Indicators;
}

export interface StrategyDefinition<P = any, S = any> {
  /** Unique name; part of every client order id. Letters, digits, `-`, `_`, `.`; at most 40 characters. */
  readonly name: string;
  readonly description?: string;
  /** Default markets; config may override them. */
  readonly markets: readonly MarketName[];
  readonly interval: Interval;
  /** A zod schema (normally z.object) whose fields all have defaults: `parse({})` must succeed. */
  readonly params: z.ZodType<P>;
  /** Closed candles needed before the first `onCandle` call (0 = call from the first candle). */
  readonly warmup: number;
  /** Candles kept in `ctx.candles`; default max(warmup, 2). */
  readonly window?: number;
  initState?(args: StrategyInitArgs<P>): S;
  /** Called once per closed candle, in order, after warm-up. Returns intents (possibly none). */
  onCandle(ctx: StrategyContext<P, S>): readonly Intent[] | Promise<readonly Intent[]>;
}

/**
 * Identity function that types a definition: `params` infers P, `initState` infers S, and both
 * flow into `onCandle`'s ctx.
 */
export function defineStrategy<Schema extends z.ZodType, S = Record<string, unknown>>(
  definition: Omit<StrategyDefinition<z.output<Schema>, S>, 'params' | 'initState' | 'onCandle'> & {
    readonly params: Schema;
    initState?(args: StrategyInitArgs<z.output<Schema>>): S;
    onCandle(ctx: StrategyContext<z.output<Schema>, S>): readonly Intent[] | Promise<readonly Intent[]>;
  },
): StrategyDefinition<z.output<Schema>, S> {
  return definition as StrategyDefinition<z.output<Schema>, S>;
}
