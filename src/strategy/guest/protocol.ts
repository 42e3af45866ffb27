import type { Wire, WireCandle } from './wire';

/** Parent -> guest: load the strategy (by name, from the module directory, with the config's overrides). */
export interface InitMessage {
  readonly type: 'init';
  readonly dir: string;
  /** The module file (in `dir`): the guest loads it alone, no listing of the folder; absent: found by name in `dir`. */
  readonly file?: string | undefined;
  readonly name: string;
  readonly config: Wire;
}

/** One closed candle for one market, with what the strategy may see when it runs on it. */
export interface CandleItem {
  readonly market: string;
  readonly candle: WireCandle;
  /** Its balances, its own open orders, position, events, market info (toWire). */
  readonly view: Wire;
  /** A warm-up candle of the daemon's start-up history: its ctx.log lines are marked, its intents discarded. */
  readonly warm?: boolean | undefined;
}

/**
 * Parent -> guest: a batch of closed candles (every candle that arrived while the guest's previous
 * batch was out; one candle when the guest is idle), run one after the other, answered by ONE result
 * carrying each candle's intents. `warm`: history replayed after a restart; intents discarded (a
 * single start-up warm-up candle says so itself: CandleItem.warm).
 */
export interface CandlesMessage {
  readonly type: 'candles';
  readonly id: number;
  readonly interval: string;
  readonly nowMs: number;
  readonly items: readonly CandleItem[];
  readonly warm: boolean;
}

/** Parent -> throwaway guest: load and validate every module of `dir` with the config; answer metadata only. */
export interface DescribeMessage {
  readonly type: 'describe';
  readonly dir: string;
  /** The one module file (name in `dir`) to load. */
  readonly file: string;
  /** Per strategy name, its StrategyConfig (toWire). */
  readonly config: Wire;
}

export type ToGuest = InitMessage | CandlesMessage | DescribeMessage;

/** A valid strategy as the describing guest saw it: plain metadata, checked again by the daemon. */
export interface DescribedStrategy {
  readonly name: string;
  readonly file: string | undefined;
  readonly markets: readonly string[];
  readonly interval: string;
  readonly warmup: number;
  readonly window: number;
  /** Its parameters after defaults and overrides (toWire), for display (check-config) only. */
  readonly params: Wire;
  /** The module's own description, for display (strategies list) only. */
  readonly description?: string | undefined;
  /** The files the module loaded (module first); the daemon reads and hashes them itself for the version. */
  readonly sources: readonly string[];
}

/** One candle's answer: its intents (toWire), or why it failed, and how long onCandle took there. */
export interface ItemResult {
  readonly intents: Wire;
  readonly failure?: string | undefined;
  /** Where the strategy's own code threw (`file:line:column` in the strategy directory), when known. */
  readonly at?: string | undefined;
  readonly elapsedMs: number;
}

/** Guest -> parent. */
export type FromGuest =
  | { readonly type: 'ready' }
  | { readonly type: 'load_failed'; readonly reason: string }
  | { readonly type: 'described'; readonly strategies: readonly DescribedStrategy[]; readonly errors: readonly { readonly message: string; readonly context: Readonly<Record<string, string | number | boolean>> }[]; readonly disabled: readonly string[]; readonly declared: readonly string[] }
  | { readonly type: 'describe_failed'; readonly reason: string }
  | { readonly type: 'result'; readonly id: number; readonly results: readonly ItemResult[] }
  | { readonly type: 'log'; readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly market: string; readonly obj: Wire; readonly msg?: string | undefined; /** Written while the guest ran a warm-up batch (intents discarded). */ readonly warm?: boolean | undefined };
