import type { Clock } from '../../core/clock';
import type { MarketName } from '../../domain/market';
import type { ExchangeClient } from '../../exchange/exchange-client';

/**
 * Why refreshing is not allowed right now; undefined means healthy. The daemon answers "halted"
 * (trading state), "redis down" (the journal cannot record what we do) or "stopping".
 */
export type KillSwitchHealth = () => string | undefined;

export interface KillSwitchLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface KillSwitchRefresherOptions {
  readonly exchange: Pick<ExchangeClient, 'setKillSwitch'>;
  /** Markets whose open orders the exchange cancels when we stop refreshing. */
  readonly markets: readonly MarketName[];
  /** Exchange timer length, 5..600 s. */
  readonly timeoutSeconds: number;
  /** The exchange's time (market clock in paper mode): stamps refreshes for metrics. */
  readonly clock: Clock;
  readonly health: KillSwitchHealth;
  readonly log: KillSwitchLog;
  /** Called after each market's timer was (re)set. */
  readonly onRefresh?: (market: MarketName, nowMs: number, timeoutSeconds: number) => void;
  readonly onError?: (market: MarketName, error: unknown) => void;
  /** Called for each market when a round does not re-arm it (unhealthy). */
  readonly onSkip?: (market: MarketName, reason: string) => void;
}

/** What one refresh round did, per market. */
export type KillSwitchRound =
  | { readonly refreshed: readonly MarketName[]; readonly failed: readonly MarketName[]; readonly skipped?: undefined }
  | { readonly refreshed: readonly []; readonly failed: readonly []; readonly skipped: string };

/**
 * The exchange's kill-switch used as a dead man's switch. It lives in execution, not risk: it calls
 * the exchange; whether refreshing is allowed (`health`) is decided by its caller. While the daemon is healthy, every round
 * re-arms each market's timer for `timeoutSeconds`; the scheduler runs a round every
 * `refreshSeconds` (at most half the timeout, so one missed round cancels nothing). When the daemon
 * halts, loses Redis or dies, rounds stop re-arming: the exchange's timer runs out and the EXCHANGE
 * cancels that market's open orders, even though we are no longer there to do it.
 *
 * On a graceful stop the timers are deliberately left running, not deleted: a restart (pm2 reload,
 * a new pod) re-arms them within the timeout, and a daemon that does not come back still gets its
 * orders canceled.
 */
export class KillSwitchRefresher {
  private lastSkipReason: string | undefined;

  constructor(private readonly o: KillSwitchRefresherOptions) {}

  get markets(): readonly MarketName[] {
    return this.o.markets;
  }

  /** One round: re-arm every market's timer, or nothing when unhealthy. Never throws. */
  async refresh(): Promise<KillSwitchRound> {
    const reason = this.o.health();
    if (reason !== undefined) {
      // Logged on change only: a halted daemon would otherwise log this every round.
      if (reason !== this.lastSkipReason) {
        this.o.log.warn({ reason, markets: this.o.markets }, 'kill-switch NOT refreshed: the exchange will cancel these markets\' open orders when the timer runs out');
      }
      this.lastSkipReason = reason;
      for (const market of this.o.markets) this.o.onSkip?.(market, reason);
      return { refreshed: [], failed: [], skipped: reason };
    }
    if (this.lastSkipReason !== undefined) this.o.log.info({ markets: this.o.markets }, 'kill-switch refreshing again');
    this.lastSkipReason = undefined;
    const results = await Promise.all(this.o.markets.map(async (market) => {
      try {
        await this.o.exchange.setKillSwitch({ market, timeoutSeconds: this.o.timeoutSeconds, types: ['spot'] });
        this.o.onRefresh?.(market, this.o.clock.nowMs(), this.o.timeoutSeconds);
        return { market, ok: true };
      } catch (error) {
        this.o.log.error({ market, err: error }, 'kill-switch refresh failed');
        this.o.onError?.(market, error);
        return { market, ok: false };
      }
    }));
    return { refreshed: results.filter((r) => r.ok).map((r) => r.market), failed: results.filter((r) => !r.ok).map((r) => r.market) };
  }
}
