import type { Wire } from './wire';

/** Parent -> guest: load the strategy (by name, from the module directory, with the config's overrides). */
export interface InitMessage {
  readonly type: 'init';
  readonly dir: string;
  readonly name: string;
  readonly config: Wire;
}

/**
 * Parent -> guest: one closed candle with what the strategy may see (its balances, its own open
 * orders, position, events, market info). `warm`: history replayed after a restart; intents discarded.
 */
export interface CandleMessage {
  readonly type: 'candle';
  readonly id: number;
  readonly market: string;
  readonly interval: string;
  readonly candle: Wire;
  readonly nowMs: number;
  readonly view: Wire;
  readonly warm: boolean;
}

export type ToGuest = InitMessage | CandleMessage;

/** Guest -> parent. */
export type FromGuest =
  | { readonly type: 'ready' }
  | { readonly type: 'load_failed'; readonly reason: string }
  | { readonly type: 'result'; readonly id: number; readonly intents: Wire; readonly failure?: string | undefined }
  | { readonly type: 'log'; readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly market: string; readonly obj: Wire; readonly msg?: string | undefined };
