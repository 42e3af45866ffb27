import type { Clock } from '../core/clock';
import type { Balances } from '../domain/market';
import type { ExchangeClient } from '../exchange/exchange-client';

/** The trading balances as last fetched, with the (injected) clock's time the request started. */
export interface BalanceSnapshot {
  readonly balances: Balances;
  /** Clock time (Unix ms) when the request was sent: the balances are at least this fresh. */
  readonly fetchedAtMs: number;
}

export interface BalancePollerOptions {
  readonly client: Pick<ExchangeClient, 'fetchTradingBalances'>;
  readonly clock: Clock;
  /** Narrow the request to one ticker (the endpoint's optional `ticker`); default all currencies. */
  readonly ticker?: string;
  /** Called after each snapshot that replaced the previous one. */
  readonly onUpdate?: (snapshot: BalanceSnapshot) => void;
}

/**
 * Keeps the latest spot trading-balance snapshot. The scheduler calls poll() periodically (job
 * `balance`); readers call latest(). When two polls overlap, an answer to an older request never
 * replaces a snapshot from a newer one.
 */
export class BalancePoller {
  private current: BalanceSnapshot | undefined;

  constructor(private readonly options: BalancePollerOptions) {}

  /** Fetches the balances; a failure (ExchangeUnavailableError, ...) propagates and keeps the previous snapshot. */
  async poll(): Promise<BalanceSnapshot> {
    const fetchedAtMs = this.options.clock.nowMs();
    const { client, ticker } = this.options;
    const balances = ticker === undefined ? await client.fetchTradingBalances() : await client.fetchTradingBalances(ticker);
    const snapshot: BalanceSnapshot = { balances, fetchedAtMs };
    if (this.current === undefined || this.current.fetchedAtMs <= fetchedAtMs) {
      this.current = snapshot;
      this.options.onUpdate?.(snapshot);
      return snapshot;
    }
    return this.current;
  }

  /** The newest snapshot, or undefined before the first successful poll. */
  latest(): BalanceSnapshot | undefined {
    return this.current;
  }

  /** Age of the newest snapshot in ms (Infinity before the first one), for risk checks and metrics. */
  ageMs(): number {
    return this.current === undefined ? Infinity : this.options.clock.nowMs() - this.current.fetchedAtMs;
  }
}
