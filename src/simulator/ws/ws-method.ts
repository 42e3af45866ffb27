import type { Clock } from '../../core/clock';
import type { SimEngine } from '../engine/sim-engine';
import type { MarketFeed } from '../market/market-feed';
import type { WsConnection, WsSubscriptions } from './ws-connection';
import { invalidArgument, SUCCESS } from './ws-protocol';
import type { WsTokens } from './ws-tokens';

/** What a method handler may use. */
export interface WsMethodContext {
  readonly conn: WsConnection;
  readonly engine: SimEngine;
  readonly feed: MarketFeed;
  /** Market clock (candles, order times). */
  readonly marketClock: Clock;
  /** Wall clock (`time`, token lifetime, rate windows). */
  readonly wallClock: Clock;
  readonly tokens: WsTokens;
}

/**
 * One JSON-RPC method: `run` returns the `result` or throws a WsRefusal. A `private` method needs a
 * successful `authorize` on the connection first (code 6 otherwise).
 */
export interface WsMethod {
  readonly private: boolean;
  run(ctx: WsMethodContext, params: readonly unknown[]): unknown;
}

// ---- strict parameter readers: anything else is code 1 "invalid argument" ----

export function arity(params: readonly unknown[], n: number): void {
  if (params.length !== n) throw invalidArgument();
}

export function marketParam(ctx: WsMethodContext, value: unknown): string {
  if (typeof value !== 'string' || ctx.engine.market(value) === undefined || ctx.feed.source(value) === undefined) throw invalidArgument();
  return value;
}

export function marketList(ctx: WsMethodContext, values: readonly unknown[]): string[] {
  return values.map((v) => marketParam(ctx, v));
}

export function intParam(value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) throw invalidArgument();
  return value as number;
}

/** `[]`: the only params an unsubscribe takes (asyncapi `UnsubscribeRequest`, maxItems 0). */
export function noParams(params: readonly unknown[]): void {
  arity(params, 0);
}

/** `<channel>_unsubscribe`: takes `[]`, drops the connection's subscription of that channel. */
export function unsubscribe(channel: keyof WsSubscriptions, isPrivate: boolean): WsMethod {
  return {
    private: isPrivate,
    run: (ctx, params) => {
      noParams(params);
      delete ctx.conn.subscriptions[channel];
      return SUCCESS;
    },
  };
}
