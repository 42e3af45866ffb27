import type { LoadedStrategy } from '../../src/strategy/prepare-strategy';
import type { StrategyContext } from '../../src/strategy/strategy';

/** What one onCandle call was told about its orders, as plain strings (comparable across runs). */
export interface CtxSeen {
  readonly strategy: string;
  readonly candleTime: number;
  readonly events: readonly string[];
  readonly position: string;
  readonly openOrders: readonly string[];
}

/**
 * Wraps loaded strategies so every onCandle call records ctx.events, ctx.position and the
 * ctx.openOrders entries (with their purpose) before the strategy runs; the strategy itself is unchanged.
 */
export function probeStrategies(strategies: readonly LoadedStrategy[]): { strategies: LoadedStrategy[]; seen: CtxSeen[] } {
  const seen: CtxSeen[] = [];
  const wrapped = strategies.map((s): LoadedStrategy => {
    const def = s.definition;
    const definition = {
      ...def,
      onCandle(ctx: StrategyContext<unknown, unknown>) {
        seen.push({
          strategy: ctx.strategy,
          candleTime: ctx.candle.time,
          events: ctx.events.map((e) => {
            switch (e.type) {
              case 'filled':
              case 'partially_filled':
                return `${e.type} ${e.clientOrderId} ${e.leg ?? ''} ${e.side} ${e.amount.toString()} @${e.price.toString()} total ${e.filledAmount.toString()}`;
              case 'cancelled':
                return `${e.type} ${e.clientOrderId} filled ${e.filledAmount.toString()}`;
              case 'rejected':
                return `${e.type} ${e.clientOrderId}`;
              case 'denied':
                return `${e.type} ${e.rule}`;
            }
          }),
          position: `${ctx.position.amount.toString()} @${ctx.position.averageEntry?.toString() ?? '-'} upnl ${ctx.position.unrealizedPnl.toString()}`,
          openOrders: ctx.openOrders.map((o) => `${o.clientOrderId} ${o.kind} ${o.purpose ?? 'no-purpose'} ${o.amount.toString()}`),
        });
        return def.onCandle.call(this, ctx as never);
      },
    };
    return { ...s, definition };
  });
  return { strategies: wrapped, seen };
}
