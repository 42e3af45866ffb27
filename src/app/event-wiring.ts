import type { Clock } from '../core/clock';
import type { DaemonEventBus } from '../domain/daemon-event';
import type { ExecutionEvents } from '../execution/journal/events';
import type { Portfolio } from '../portfolio/portfolio';
import type { TradingStateControl } from '../trading-state/trading-state-control';

/**
 * The daemon's parts, told as DaemonEvents (notifications, the console's live page). Ids name the
 * happening so that replicas seeing the same one give the same id (notify/ deduplicates by it).
 */

/** Fills of this process's life (the journal's replayed ones at start-up are not news). */
export function publishFills(bus: DaemonEventBus, portfolio: Portfolio, wallClock: Clock): void {
  portfolio.onFill((state, fill) => {
    if (fill.replayed === true || fill.clientOrderId === undefined) return;
    bus.emit({
      type: 'fill', id: `fill:${fill.clientOrderId}:${fill.filledAmount?.toString() ?? fill.amount.toString()}`, atMs: wallClock.nowMs(),
      strategy: state.strategy, market: state.market, side: fill.side, amount: fill.amount.toString(), price: fill.price.toString(), fee: fill.fee.toString(),
      clientOrderId: fill.clientOrderId,
    });
  });
}

export function publishTradingStateChanges(bus: DaemonEventBus, control: TradingStateControl): void {
  control.onChange((c) => bus.emit({ type: 'trading_state', id: `state:${c.id}`, atMs: c.atMs, state: c.state, previous: c.previous, reason: c.reason }));
}

/** The executor's events, passed on unchanged, with rejections and order moves told on the bus. */
export function publishedExecutionEvents(bus: DaemonEventBus, wallClock: Clock, inner: ExecutionEvents): ExecutionEvents {
  return {
    emit(e): void {
      inner.emit(e);
      const atMs = wallClock.nowMs();
      switch (e.type) {
        case 'OrderRejected':
          bus.emit({ type: 'rejection', id: `rejected:${e.clientOrderId}`, atMs, clientOrderId: e.clientOrderId, reason: e.reason, code: e.code });
          return;
        case 'OrderAccepted':
        case 'OrderFilled':
        case 'OrderCanceled':
        case 'OrderTriggered':
          bus.emit({ type: 'order', id: `order:${e.clientOrderId}:${e.type}`, atMs, clientOrderId: e.clientOrderId, status: e.type });
          return;
        default:
      }
    },
  };
}
