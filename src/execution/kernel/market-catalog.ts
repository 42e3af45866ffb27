import type { Clock } from '../../core/clock';
import type { MarketInfo, MarketName } from '../../domain/market';
import type { ExchangeClient } from '../../exchange/exchange-client';

export interface MarketCatalogOptions {
  readonly exchange: Pick<ExchangeClient, 'fetchMarkets'>;
  readonly clock: Clock;
  /** How long a fetched list is used before the next `get` refreshes it (default 5 min). */
  readonly refreshMs?: number;
}

/**
 * The markets endpoint, cached. Precision and minimums change rarely, so orders use the cached
 * list; it is refreshed after `refreshMs`, and at once when a market is asked for that the list does
 * not have (a newly listed market). While a refresh fails, the last good list keeps serving: the
 * precision of a listed market does not become wrong because the exchange is briefly unreachable.
 * Concurrent callers share one in-flight request.
 */
export class MarketCatalog {
  private markets = new Map<MarketName, MarketInfo>();
  private fetchedAtMs: number | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly refreshMs: number;

  constructor(private readonly options: MarketCatalogOptions) {
    this.refreshMs = options.refreshMs ?? 300_000;
  }

  /** The market, or undefined when the exchange does not list it (or lists it with trading disabled). */
  async get(name: MarketName): Promise<MarketInfo | undefined> {
    const stale = this.fetchedAtMs === undefined || this.options.clock.nowMs() - this.fetchedAtMs >= this.refreshMs;
    if (stale || !this.markets.has(name)) {
      try {
        await this.refresh();
      } catch (err) {
        if (this.fetchedAtMs === undefined) throw err; // nothing cached: the caller must not guess precision
      }
    }
    const market = this.markets.get(name);
    return market !== undefined && market.tradesEnabled ? market : undefined;
  }

  /** Synchronous read of the cached list (benchmarks, risk checks after a `get`). */
  cached(name: MarketName): MarketInfo | undefined {
    return this.markets.get(name);
  }

  refresh(): Promise<void> {
    this.inFlight ??= (async () => {
      try {
        const list = await this.options.exchange.fetchMarkets();
        this.markets = new Map(list.map((m) => [m.name, m]));
        this.fetchedAtMs = this.options.clock.nowMs();
      } finally {
        this.inFlight = undefined;
      }
    })();
    return this.inFlight;
  }
}
