import type { Clock } from '../core/clock';
import type { Balances } from '../domain/market';

/** Balances as last fetched, with the (injected) clock's time the request started. */
export interface BalanceSnapshot<T = Balances> {
  readonly balances: T;
  /** Clock time (Unix ms) when the request was sent: the balances are at least this fresh. */
  readonly fetchedAtMs: number;
}

export interface BalancePollerOptions<T> {
  /** One request for the balances, e.g. `() => client.fetchTradingBalances()`. */
  readonly fetch: () => Promise<T>;
  readonly clock: Clock;
  /** Called after each snapshot that replaced the previous one. */
  readonly onUpdate?: (snapshot: BalanceSnapshot<T>) => void;
}

/**
 * Keeps the latest snapshot of one account's balances: the spot trading balance, or the collateral
 * account (OCO margin), each with its own poller and job so one failing never stales the other. The
 * scheduler calls poll() periodically; readers call latest(). When two polls overlap, an answer to an
 * older request never replaces a snapshot from a newer one.
 */
export class BalancePoller<T = Balances> {
  private current: BalanceSnapshot<T> | undefined;

  constructor(private readonly options: BalancePollerOptions<T>) {}

  /** Fetches the balances; a failure (ExchangeUnavailableError, ...) propagates and keeps the previous snapshot. */
  async poll(): Promise<BalanceSnapshot<T>> {
    const fetchedAtMs = this.options.clock.nowMs();
    const balances = await this.options.fetch();
    const snapshot: BalanceSnapshot<T> = { balances, fetchedAtMs };
    if (this.current === undefined || this.current.fetchedAtMs <= fetchedAtMs) {
      this.current = snapshot;
      this.options.onUpdate?.(snapshot);
      return snapshot;
    }
    return this.current;
  }

  /** The newest snapshot, or undefined before the first successful poll. */
  latest(): BalanceSnapshot<T> | undefined {
    return this.current;
  }

  /** Age of the newest snapshot in ms (Infinity before the first one), for risk checks and metrics. */
  ageMs(): number {
    return this.current === undefined ? Infinity : this.options.clock.nowMs() - this.current.fetchedAtMs;
  }
}
