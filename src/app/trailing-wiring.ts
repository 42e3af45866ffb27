import type { TrailingEvent } from '../execution/trailing/trailing-stops';
import type { Logger } from '../log/logger';
import type { Metrics } from '../metrics/registry';
import type { TrailingStopRecord } from '../store/trailing-store-port';

/** The trailing stops' events as metrics and log lines (their legs' orders log as every order does). */
export function trailingObserver(m: Metrics, log: Logger): (e: TrailingEvent) => void {
  return (e) => {
    const r = e.record;
    if (e.type === 'ended') {
      m.trailingEnded.inc({ strategy: r.strategy, market: r.market, reason: endReasonLabel(e.reason) });
      log.info({ trailingStop: r.id, strategy: r.strategy, market: r.market, leg: r.leg.leg, reason: e.reason }, 'trailing stop ended');
      return;
    }
    if (e.type === 'held') {
      // warn: the price moved, the stop did not (a halt, a guardrail or the price band refuses its next leg).
      log.warn({ trailingStop: r.id, strategy: r.strategy, market: r.market, leg: r.leg.leg, reason: e.reason }, 'trailing stop not moved: its next leg would be refused; the resting stop stays');
      return;
    }
    if (e.type === 'moved') m.trailingMoves.inc({ strategy: r.strategy, market: r.market });
    log.info({
      trailingStop: r.id, strategy: r.strategy, market: r.market, leg: e.leg.leg, clientOrderId: e.leg.clientOrderId, candleTime: e.leg.candleTime,
      trigger: e.leg.trigger, price: e.leg.price, best: r.best, outcome: e.result.outcome,
    }, e.type === 'moved' ? 'trailing stop moved' : 'trailing stop placed');
  };
}

const END_REASONS = ['filled', 'cancelled', 'denied', 'rejected', 'other'] as const;

/** Zero series per (strategy, market) from the start: the dashboard shows 0 and `increase()` sees the first move. */
export function zeroTrailingSeries(m: Metrics, strategies: readonly { readonly name: string; readonly markets: readonly string[] }[]): void {
  for (const s of strategies) {
    for (const market of s.markets) {
      m.trailingMoves.inc({ strategy: s.name, market }, 0);
      for (const reason of END_REASONS) m.trailingEnded.inc({ strategy: s.name, market, reason }, 0);
    }
  }
}

function endReasonLabel(reason: string): (typeof END_REASONS)[number] {
  if (reason === 'filled') return 'filled';
  if (reason.startsWith('cancelled')) return 'cancelled';
  if (reason.includes('denied')) return 'denied';
  if (reason.includes('rejected')) return 'rejected';
  return 'other';
}

/**
 * TEST ONLY (the SIGKILL test of docs/trailing-stops.md, "Crash safety"): with
 * TRADEBOT_TEST_TRAILING_KILL_BEFORE_LEG=<n>, the daemon SIGKILLs itself when a move is journaled and
 * its old leg known cancelled, right before leg n is submitted: the worst moment (no leg rests). Unset
 * (always, in production): no hook at all.
 */
export function testKillBeforeLeg(value: string | undefined): ((record: TrailingStopRecord) => void) | undefined {
  if (value === undefined || value === '') return undefined;
  const leg = Number(value);
  if (!Number.isSafeInteger(leg) || leg < 1) throw new Error(`TRADEBOT_TEST_TRAILING_KILL_BEFORE_LEG must be a leg number >= 1, got ${JSON.stringify(value)}`);
  return (record) => {
    if (record.next?.leg === leg) process.kill(process.pid, 'SIGKILL');
  };
}
