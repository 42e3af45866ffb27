import type { SimOrder } from '../engine/types';
import { arity, intParam, marketList, marketParam, unsubscribe, type WsMethod, type WsMethodContext } from './ws-method';
import { invalidArgument, SUCCESS } from './ws-protocol';
import { wsBalance, wsDealRecord, wsOrder } from './ws-wire-format';

/**
 * `authorize` and the private channels: balanceSpot (asyncapi/private/balance_spot.yaml), ordersPending
 * (orders_pending.yaml) and deals (deals.yaml). The server checks authorization before `run`.
 */

/** The connection's API key; the server only runs private methods on authorized connections. */
function apiKeyOf(ctx: WsMethodContext): string {
  if (ctx.conn.apiKey === undefined) throw invalidArgument();
  return ctx.conn.apiKey;
}

/** Asset tickers; `[]` means every asset. Unknown tickers are refused. */
function assetList(ctx: WsMethodContext, params: readonly unknown[]): Set<string> | undefined {
  if (params.length === 0) return undefined;
  const known = ctx.engine.tradingBalances(apiKeyOf(ctx));
  const out = new Set<string>();
  for (const p of params) {
    if (typeof p !== 'string' || !known.has(p)) throw invalidArgument();
    out.add(p);
  }
  return out;
}

/** What `balanceSpot_request` answers and what the push compares against: `{ASSET: {available, freeze}}`. */
export function balancesOf(ctx: Pick<WsMethodContext, 'engine'>, apiKey: string, assets: ReadonlySet<string> | undefined): Record<string, { available: string; freeze: string }> {
  const out: Record<string, { available: string; freeze: string }> = {};
  for (const [asset, entry] of ctx.engine.tradingBalances(apiKey)) if (assets === undefined || assets.has(asset)) out[asset] = wsBalance(entry);
  return out;
}

/** Every open order of the account on `market`, OCO legs included (they are orders with ids and types 7 / 9), oldest first. */
export function openOrdersOf(ctx: Pick<WsMethodContext, 'engine'>, apiKey: string, market: string): SimOrder[] {
  const legs = ctx.engine.activeOcos(apiKey, market).flatMap((oco) => [oco.stopLoss, oco.takeProfit]).filter((o) => o.status === 'OPEN');
  return [...ctx.engine.activeOrders(apiKey, { market }), ...legs].sort((a, b) => a.id - b.id);
}

/** `[market, offset, limit<=100]` of ordersPending_request and deals_request. */
function pageParams(ctx: WsMethodContext, params: readonly unknown[]): { market: string; offset: number; limit: number } {
  arity(params, 3);
  return { market: marketParam(ctx, params[0]), offset: intParam(params[1], 0), limit: intParam(params[2], 1, 100) };
}

export const ACCOUNT_METHODS: Readonly<Record<string, WsMethod>> = {
  authorize: {
    private: false,
    run: (ctx, params) => {
      arity(params, 2);
      const [token, scope] = params;
      if (typeof token !== 'string' || scope !== 'public') throw invalidArgument();
      const apiKey = ctx.tokens.apiKeyOf(token, ctx.wallClock.nowMs());
      if (apiKey === undefined || !ctx.engine.hasAccount(apiKey)) throw invalidArgument();
      ctx.conn.apiKey = apiKey;
      return SUCCESS;
    },
  },

  balanceSpot_request: {
    private: true,
    run: (ctx, params) => balancesOf(ctx, apiKeyOf(ctx), assetList(ctx, params)),
  },
  balanceSpot_subscribe: {
    private: true,
    run: (ctx, params) => {
      const assets = assetList(ctx, params);
      const seen = new Map<string, string>();
      for (const [asset, b] of Object.entries(balancesOf(ctx, apiKeyOf(ctx), assets))) seen.set(asset, JSON.stringify(b));
      ctx.conn.subscriptions.balanceSpot = { assets, seen };
      return SUCCESS;
    },
  },
  balanceSpot_unsubscribe: unsubscribe('balanceSpot', true),

  ordersPending_request: {
    private: true,
    run: (ctx, params) => {
      const { market, offset, limit } = pageParams(ctx, params);
      const all = openOrdersOf(ctx, apiKeyOf(ctx), market);
      return { limit, offset, total: all.length, records: all.slice(offset, offset + limit).map(wsOrder) };
    },
  },
  ordersPending_subscribe: {
    private: true,
    run: (ctx, params) => {
      ctx.conn.subscriptions.ordersPending = { markets: new Set(marketList(ctx, params)) };
      return SUCCESS;
    },
  },
  ordersPending_unsubscribe: unsubscribe('ordersPending', true),

  deals_request: {
    private: true,
    run: (ctx, params) => {
      const { market, offset, limit } = pageParams(ctx, params);
      const rows = ctx.engine.deals(apiKeyOf(ctx)).filter((d) => d.market === market);
      return { limit, offset, records: rows.slice(offset, offset + limit).map(wsDealRecord) };
    },
  },
  deals_subscribe: {
    private: true,
    run: (ctx, params) => {
      // Nested: `[[market, ...]]`; `[[]]` = every market (deals.yaml, deals.mdx).
      arity(params, 1);
      const inner = params[0];
      if (!Array.isArray(inner)) throw invalidArgument();
      ctx.conn.subscriptions.deals = { markets: inner.length === 0 ? undefined : new Set(marketList(ctx, inner)) };
      return SUCCESS;
    },
  },
  deals_unsubscribe: unsubscribe('deals', true),
};
