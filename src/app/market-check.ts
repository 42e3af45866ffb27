import type { FrozenConfig } from '../config/load';
import { SystemClock } from '../core/clock';
import { ConfigError } from '../domain/errors';
import { HttpExchangeClient } from '../exchange/http/client';
import { InMemoryNonceSource } from '../exchange/nonce/in-memory-nonce-source';
import type { MarketCatalog } from '../execution/kernel/market-catalog';
import { InMemoryRateLimiter } from '../limiter/in-memory-limiter';
import type { Logger } from '../log/logger';

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

/**
 * The daemon's check, once the catalog is read: every strategy market must be listed (else exit 78
 * naming it, before any trading); one listed with trading disabled is the venue's passing state:
 * logged, its intents denied.
 */
export async function requireListedMarkets(config: FrozenConfig, catalog: MarketCatalog, strategies: readonly StrategyMarkets[], log: Logger): Promise<void> {
  await catalog.refresh();
  const listed = [...new Set(strategies.flatMap((s) => s.markets))].flatMap((mk) => {
    const info = catalog.cached(mk);
    return info === undefined ? [] : [{ name: info.name, tradesEnabled: info.tradesEnabled }];
  });
  const check = checkStrategyMarkets(strategies, listed);
  const unlisted = unlistedMarketsError(check, venueSource(config, config.exchange.baseUrl), embeddedMarkets(config));
  if (unlisted !== undefined) throw unlisted;
  for (const n of check.notTrading) log.error({ strategy: n.strategy, markets: n.markets }, 'market listed with trading disabled at the exchange: its intents will be denied');
}

/** The markets of the embedded simulator (`paper.markets`); undefined for any other venue. */
function embeddedMarkets(config: FrozenConfig): string[] | undefined {
  return config.mode === 'paper' && config.paper?.exchangeUrl === undefined ? (config.paper?.markets ?? []).map((m) => m.market) : undefined;
}

/** How messages name the venue: `paper.markets` for the embedded simulator, else its URL (`liveUrl` in live mode). */
function venueSource(config: FrozenConfig, liveUrl: string): string {
  if (config.mode === 'live') return `the venue at ${liveUrl}`;
  const remote = config.paper?.exchangeUrl;
  return remote === undefined ? 'paper.markets' : `the simulated exchange at ${remote}`;
}

/** The venue's market list as the daemon would see it: `paper.markets` for the embedded simulator, else the public markets endpoint. */
export async function venueMarkets(config: FrozenConfig, timeoutMs = 5000): Promise<VenueMarkets> {
  const ex = config.exchange;
  const liveUrl = ex.primaryRegion === 'eu' && ex.euBaseUrl !== undefined ? ex.euBaseUrl : ex.baseUrl;
  const source = venueSource(config, liveUrl);
  const embedded = embeddedMarkets(config);
  if (embedded !== undefined) return { kind: 'listed', source, markets: embedded.map((name) => ({ name, tradesEnabled: true })) };
  const baseUrl = (config.mode === 'paper' ? config.paper?.exchangeUrl : undefined) ?? liveUrl;
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
