import type { GuestIsolationChoice } from '../domain/guest-isolation';

/**
 * The defaults the daemon and the backtester share, in one place: a backtest must run a strategy
 * under the rules the daemon will apply to it, so `config/schema.ts` (the daemon) and
 * `backtest/` (through the same schema) read them here instead of keeping copies. Plain data, no I/O.
 *
 * Fees are not here: the simulated exchange's markets charge them (`simulator/sim-markets.ts`), in
 * paper trading and in backtests alike; live, the exchange's market list says.
 */

/** How the strategy host treats a strategy (config `strategies`). */
export const STRATEGY_DEFAULTS = Object.freeze({
  /** Time budget of one onCandle call in ms. Live, a call over it is a failure and its intents are dropped. */
  timeBudgetMs: 250,
  /** Consecutive failures (throw, overrun, invalid intents) after which a strategy is paused. */
  maxConsecutiveFailures: 5,
  /** Heap limit (V8 old generation) of one strategy's worker thread in the daemon, MB. */
  guestHeapMb: 128,
  /** Guests as walled off as this host allows (docs/security.md; 'thread': worker threads, no fs boundary). */
  guestIsolation: 'auto' as GuestIsolationChoice,
  /** Log lines per second one guest may write; the rest are dropped and counted. */
  guestLogLinesPerSecond: 20,
});

/** Pre-trade risk (config `risk`). Limits absent here are off unless configured. */
export const RISK_DEFAULTS = Object.freeze({
  initialState: 'active' as const,
  /** Extra money a buy must have available on top of amount x price, as a ratio: covers the fee. */
  feeMargin: '0.002',
});

/** `exchange.streams`: which WebSocket streams the daemon uses (docs/streams.md). */
export const STREAM_MODES = ['off', 'market', 'account', 'all'] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

/**
 * The venue's WebSocket endpoint as its own documentation (whitebit-exchange/docs, websocket/*,
 * asyncapi `servers`) names it on every page. Issue #22 reports a 2026 move to
 * `wss://wss.whitebit.com/ws`; no page of the venue's docs says so, hence configurable, and the
 * documented host is the default (docs/streams.md "Which host").
 */
export const DEFAULT_STREAM_URL = 'wss://api.whitebit.com/ws';
