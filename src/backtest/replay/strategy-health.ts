import type { MarketName } from '../../domain/market';
import type { StrategyHostEvents, StrategyStats } from '../../strategy/strategy-host';

/** Failures kept with their message per strategy (the counts cover all of them). */
const SAMPLE_LIMIT = 10;

/** One failure of a strategy's onCandle, as the report lists it. */
export interface StrategyFailureSample {
  readonly candleTime: number;
  readonly market: MarketName;
  /** 'threw' | 'invalid_intents' | 'overrun' (an overrun only fails a live run; a backtest counts it). */
  readonly reason: string;
  readonly message: string;
}

/** How a strategy fared in a run: what makes a run "failed" and what the summary, JSON and HTML show. */
export interface StrategyHealth {
  readonly strategy: string;
  /** onCandle calls (after warm-up, while not paused). */
  readonly calls: number;
  readonly intents: number;
  /** Calls that threw (or rejected) or returned invalid intents. */
  readonly errors: number;
  readonly errorsByReason: Readonly<Record<string, number>>;
  /** Calls slower than the daemon's time budget: live, each would be a failure with its intents dropped. */
  readonly overruns: number;
  readonly budgetMs: number;
  /** Times the strategy was paused after `pauseAfter` consecutive failures (a backtest never resumes it). */
  readonly pauses: number;
  readonly pauseAfter: number;
  /** Candle time of the first pause: nothing was traded by this strategy after it. */
  readonly pausedAt: number | undefined;
  /** The first failures, in order. */
  readonly samples: readonly StrategyFailureSample[];
}

/** True when the run cannot be taken at face value: a failure, an overrun or a pause. */
export function strategyFailed(h: StrategyHealth): boolean {
  return h.errors > 0 || h.overruns > 0 || h.pauses > 0;
}

/**
 * Listens to the StrategyHost's events during a backtest and keeps what `StrategyStats` does not:
 * failures by reason, the first messages, pauses and when they happened.
 */
export class HealthRecorder {
  private readonly byStrategy = new Map<string, { byReason: Record<string, number>; samples: StrategyFailureSample[]; pauses: number; pausedAt: number | undefined; lastFailureAt: number }>();

  constructor(private readonly budgetMs: number, private readonly pauseAfter: number) {}

  readonly events: StrategyHostEvents = {
    onError: (e) => {
      const s = this.entry(e.strategy);
      const reason = String(e.error.context['reason'] ?? 'threw');
      s.byReason[reason] = (s.byReason[reason] ?? 0) + 1;
      s.lastFailureAt = e.candleTime;
      if (s.samples.length < SAMPLE_LIMIT) {
        const cause = (e.error as { cause?: unknown }).cause;
        s.samples.push({ candleTime: e.candleTime, market: e.market, reason, message: cause instanceof Error ? cause.message : e.error.message });
      }
    },
    onOverrun: (e) => {
      const s = this.entry(e.strategy);
      if (s.samples.length < SAMPLE_LIMIT) {
        s.samples.push({ candleTime: e.candleTime, market: e.market, reason: 'overrun', message: `onCandle took ${e.elapsedMs.toFixed(1)} ms, budget ${e.budgetMs} ms` });
      }
    },
    onPaused: (e) => {
      const s = this.entry(e.strategy);
      s.pauses++;
      s.pausedAt ??= s.lastFailureAt;
    },
  };

  health(strategy: string, stats: StrategyStats): StrategyHealth {
    const s = this.entry(strategy);
    return {
      strategy, calls: stats.calls, intents: stats.intents, errors: stats.errors, errorsByReason: { ...s.byReason },
      overruns: stats.overruns, budgetMs: this.budgetMs, pauses: s.pauses, pauseAfter: this.pauseAfter, pausedAt: s.pausedAt, samples: [...s.samples],
    };
  }

  private entry(strategy: string) {
    let s = this.byStrategy.get(strategy);
    if (s === undefined) this.byStrategy.set(strategy, (s = { byReason: {}, samples: [], pauses: 0, pausedAt: undefined, lastFailureAt: 0 }));
    return s;
  }
}
