import type { FrozenConfig } from '../config/load';
import { SystemClock } from '../core/clock';
import { ConfigError } from '../domain/errors';
import { HttpExchangeClient } from '../exchange/http/client';
import { InMemoryNonceSource } from '../exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../limiter/in-memory-limiter';

/** A strategy and the markets it trades (config overrides applied). */
export interface StrategyMarkets {
  readonly name: string;
  readonly markets: readonly string[];
}

/** What the venue says of one market. */
export interface VenueMarket {
  readonly name: string;
  readonly tradesEnabled: boolean;
}

/** Where the market list came from (`paper.markets`, or the venue's URL): named in every message. */
export type VenueMarkets =
  | { readonly kind: 'listed'; readonly source: string; readonly markets: readonly VenueMarket[] }
  | { readonly kind: 'unreachable'; readonly source: string; readonly reason: string };

export interface MarketCheck {
  /** Per strategy, the markets the venue does not list at all: a config error. */
  readonly unlisted: readonly { readonly strategy: string; readonly markets: readonly string[] }[];
  /** Per strategy, markets listed with trading disabled: the venue's state, may change; intents are denied meanwhile. */
  readonly notTrading: readonly { readonly strategy: string; readonly markets: readonly string[] }[];
}

/** Every strategy market against the venue's list. */
export function checkStrategyMarkets(strategies: readonly StrategyMarkets[], venue: readonly VenueMarket[]): MarketCheck {
  const byName = new Map(venue.map((m) => [m.name, m]));
  const unlisted: { strategy: string; markets: string[] }[] = [];
  const notTrading: { strategy: string; markets: string[] }[] = [];
  for (const s of strategies) {
    const missing = s.markets.filter((mk) => !byName.has(mk));
    const disabled = s.markets.filter((mk) => byName.get(mk)?.tradesEnabled === false);
    if (missing.length > 0) unlisted.push({ strategy: s.name, markets: missing });
    if (disabled.length > 0) notTrading.push({ strategy: s.name, markets: disabled });
  }
  return { unlisted, notTrading };
}

/** One line per strategy with unlisted markets, naming what is offered when `offered` is given and short enough to read. */
export function unlistedLines(check: MarketCheck, source: string, offered?: readonly string[]): string[] {
  const names = offered === undefined ? undefined : [...offered].sort();
  const suffix = names === undefined ? '' : names.length === 0 ? ' (it offers none)' : names.length <= 20 ? ` (offered: ${names.join(', ')})` : ` (${names.length} markets offered)`;
  return check.unlisted.map((u) => `strategy ${u.strategy}: ${u.markets.join(', ')} not offered by ${source}${suffix}`);
}

/** The config error the daemon refuses to start with (exit 78) when a strategy market is not listed. */
export function unlistedMarketsError(check: MarketCheck, source: string, offered?: readonly string[]): ConfigError | undefined {
  if (check.unlisted.length === 0) return undefined;
  const markets = [...new Set(check.unlisted.flatMap((u) => u.markets))];
  return new ConfigError(`strategies.enabled: ${unlistedLines(check, source, offered).join('; ')}`, { path: 'strategies.enabled', markets });
}

/** The venue's market list as the daemon would see it: `paper.markets` for the embedded simulator, else the public markets endpoint. */
export async function venueMarkets(config: FrozenConfig, timeoutMs = 5000): Promise<VenueMarkets> {
  if (config.mode === 'paper' && config.paper?.exchangeUrl === undefined) {
    return { kind: 'listed', source: 'paper.markets', markets: (config.paper?.markets ?? []).map((m) => ({ name: m.market, tradesEnabled: true })) };
  }
  const remote = config.mode === 'paper' ? config.paper?.exchangeUrl : undefined;
  const ex = config.exchange;
  const baseUrl = remote ?? (ex.primaryRegion === 'eu' && ex.euBaseUrl !== undefined ? ex.euBaseUrl : ex.baseUrl);
  const source = remote === undefined ? `the venue at ${baseUrl}` : `the simulated exchange at ${baseUrl}`;
  const clock = new SystemClock();
  // A public endpoint: no credentials; one short attempt, so an unreachable venue costs seconds, not a retry ladder.
  const client = new HttpExchangeClient({
    baseUrl, primaryRegion: 'global', nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock,
    timeoutMs: Math.min(timeoutMs, ex.timeoutMs), dialect: ex.dialect, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
  });
  try {
    const markets = await client.fetchMarkets();
    return { kind: 'listed', source, markets: markets.map((m) => ({ name: m.name, tradesEnabled: m.tradesEnabled })) };
  } catch (err) {
    return { kind: 'unreachable', source, reason: err instanceof Error ? err.message : String(err) };
  }
}
