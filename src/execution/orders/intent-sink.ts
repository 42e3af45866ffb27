import type { Clock } from '../../core/clock';
import { NotReadyError } from '../../domain/errors';
import type { Logger } from '../../log/logger';
import type { Metrics } from '../../metrics/registry';
import type { OrderRecord } from '../../store/order-store-port';
import type { OrderFeedback } from '../../strategy/order-feedback';
import type { IntentSink } from '../../strategy/candle-flow';
import type { Executor, SubmitResult } from './executor';
import type { StampedIntent } from '../../strategy/intent-validation';

/** What the sink needs of the open-order view: our own submissions at once, a full re-read now and then. */
export interface OpenOrderNotes {
  note(records: readonly OrderRecord[]): void;
  refresh(): Promise<void>;
}

/**
 * Intents from the candle flow -> the executor, one at a time in the order the strategies emitted
 * them. A failure of one intent is counted and logged; it never stops the others.
 */
/** What became of one intent (the drift record); an exception shows as `error` with the rule the strategy got. */
export type IntentOutcomeHook = (stamped: StampedIntent, result: SubmitResult | { readonly outcome: 'error'; readonly rule: string }) => void;

/**
 * `caughtUp`: resolves once what an accepted order did (a fill on arrival) is in the portfolio, so the
 * next intent of the candle is checked against it (a budget, a position), as in a backtest.
 */
export function executorSink(executor: Executor, book: OpenOrderNotes, metrics: Metrics, wallClock: Clock, log: Logger, feedback?: OrderFeedback, onOutcome?: IntentOutcomeHook, caughtUp?: () => Promise<void>): IntentSink {
  let lastRefreshMs = 0;
  return {
    submit: async (intents) => {
      for (const stamped of intents) {
        try {
          const result = await executor.submit(stamped);
          onOutcome?.(stamped, result);
          if (result.outcome !== 'denied') {
            metrics.intents.inc({ strategy: stamped.strategy, result: 'accepted', rule: 'none' });
            book.note(result.records);
            if (caughtUp !== undefined) await caughtUp();
          }
        } catch (err) {
          const rule = err instanceof NotReadyError ? 'not_ready' : 'error';
          onOutcome?.(stamped, { outcome: 'error', rule });
          metrics.intents.inc({ strategy: stamped.strategy, result: 'denied', rule });
          // Strategies are third-party code: they get the rule, not the internal error (it is in the daemon's log).
          feedback?.denied(stamped.strategy, stamped.intent.market, rule, rule === 'not_ready' ? 'the executor is not ready (reconciling or stopping)' : 'the executor failed; see the daemon log');
          // Not ready is a state (reconciling, stopping: a candle that closes during a stop), not a fault.
          if (rule === 'not_ready') log.warn({ strategy: stamped.strategy, market: stamped.intent.market, reason: (err as Error).message }, 'intent not executed: the executor is not ready');
          else log.error({ err, strategy: stamped.strategy, market: stamped.intent.market }, 'intent not executed');
        }
      }
      // A full re-read of the live orders costs a Redis round trip plus one read per live order
      // (O(live) in process too): at most once a second here (note() keeps the view exact for our
      // own submissions meanwhile), and after every reconciliation pass.
      if (wallClock.nowMs() - lastRefreshMs >= 1000) {
        lastRefreshMs = wallClock.nowMs();
        await book.refresh().catch((err: unknown) => log.warn({ err }, 'open-order view not refreshed'));
      }
    },
  };
}
