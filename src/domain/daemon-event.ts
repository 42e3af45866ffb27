/**
 * What happened in the daemon that a person wants to hear about (notifications) or see move (the
 * console's live page). `id` names the happening itself, not this process's sight of it: replicas
 * that see the same fill or the same stored trading-state record give it the same id, so a
 * receiver deduplicating by id hears it once.
 */
export type DaemonEvent =
  | { readonly type: 'fill'; readonly id: string; readonly atMs: number; readonly strategy: string; readonly market: string; readonly side: 'buy' | 'sell'; readonly amount: string; readonly price: string; readonly fee: string; readonly clientOrderId: string }
  | { readonly type: 'rejection'; readonly id: string; readonly atMs: number; readonly clientOrderId: string; readonly reason: string; readonly code?: string | undefined }
  | { readonly type: 'trading_state'; readonly id: string; readonly atMs: number; readonly state: string; readonly previous: string; readonly reason: string }
  | { readonly type: 'strategy_paused'; readonly id: string; readonly atMs: number; readonly strategy: string; readonly reason: string; readonly consecutiveFailures: number }
  | { readonly type: 'version_changed'; readonly id: string; readonly atMs: number; readonly strategy: string; readonly from: string; readonly to: string; readonly by: string }
  | { readonly type: 'drift'; readonly id: string; readonly atMs: number; readonly unexplained: number; readonly allowed: number; readonly from: number; readonly to: number; readonly first: readonly string[] }
  | { readonly type: 'order'; readonly id: string; readonly atMs: number; readonly clientOrderId: string; readonly status: string }
  | { readonly type: 'candle'; readonly id: string; readonly atMs: number; readonly market: string; readonly candleTime: number }
  | { readonly type: 'guardrail'; readonly id: string; readonly atMs: number; readonly state: 'tripped' | 'lifted'; readonly guard: string; readonly scope: string; readonly action: 'halt' | 'reduce'; readonly reason: string; readonly untilMs?: number | undefined; readonly by?: string | undefined }
  | { readonly type: 'daily_summary'; readonly id: string; readonly atMs: number; readonly day: string; readonly realizedPnl: string; readonly fills: number };

export type DaemonEventType = DaemonEvent['type'];

export type DaemonEventListener = (event: DaemonEvent) => void;

/**
 * Fans events out to listeners. A listener that throws is the listener's problem: the producer
 * (an order's settlement, a trading-state change) goes on as if nobody listened.
 */
export class DaemonEventBus {
  private readonly listeners = new Set<DaemonEventListener>();

  emit(event: DaemonEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // never the producer's concern (see the class comment)
      }
    }
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: DaemonEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
