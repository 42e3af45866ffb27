import { SystemClock, type Clock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import type { Intent } from '../../../src/domain/intent';
import { buildExecution, type Execution, type ExecutionSettings } from '../../../src/execution/kernel/build-execution';
import { RecordingEvents } from '../../../src/execution/journal/events';
import { LeaseKeeper } from '../../../src/execution/guards/lease-keeper';
import { ALLOW_ALL } from '../../../src/execution/orders/risk-port';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import type { NonceSource } from '../../../src/exchange/nonce/nonce-source';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import type { RateLimiter } from '../../../src/limiter/rate-limiter';
import type { CsvCandleRow } from '../../../src/candle-files/csv-candles';
import { startSimulatedExchange, type SimulatedExchange, type SimulatedExchangeOptions } from '../../../src/simulator/start-simulated-exchange';
import { StoreKeys } from '../../../src/store/keys';
import { RedisLeaseStore } from '../../../src/store/lease-store';
import { RedisOrderStore } from '../../../src/store/order-store';
import type Redis from 'ioredis';
import type { StampedIntent } from '../../../src/strategy/intent-validation';

export const API_KEY = 'exec-key';
export const API_SECRET = 'exec-secret';
export const MARKET = 'BTC_USDT';
/** Minute-aligned start of the hand-made candles. */
export const T0 = 1_700_000_040;

/** 1m candles around 100: up to 106, then down to 90, then flat. */
export const ROWS: CsvCandleRow[] = [
  ['100', '101', '99', '100'],
  ['100', '106', '99.5', '104'],
  ['104', '105', '96', '97'],
  ['97', '98', '90', '92'],
  ['92', '93', '91', '92.5'],
  ['92.5', '93', '92', '92.5'],
].map(([open, high, low, close], i) => ({ time: T0 + i * 60, open: open!, high: high!, low: low!, close: close!, volume: '2' }));

export function startSim(extra: SimulatedExchangeOptions = {}): Promise<SimulatedExchange> {
  return startSimulatedExchange({
    apiKey: API_KEY, apiSecret: API_SECRET, balances: { USDT: '100000', BTC: '100' }, collateralBalances: { USDT: '100000' },
    markets: [{ name: MARKET, rows: ROWS }], speed: 0, start: T0, rateLimits: false, ...extra,
  });
}

export function httpClient(url: string, opts: { nonceSource?: NonceSource; limiter?: RateLimiter; timeoutMs?: number; clock?: Clock } = {}): HttpExchangeClient {
  const clock = opts.clock ?? new SystemClock();
  return new HttpExchangeClient({
    baseUrl: url, primaryRegion: 'global', credentials: { apiKey: API_KEY, apiSecret: API_SECRET },
    nonceSource: opts.nonceSource ?? new InMemoryNonceSource({ clock }), limiter: opts.limiter ?? new InMemoryRateLimiter({ clock }),
    clock, timeoutMs: opts.timeoutMs ?? 2000,
  });
}

export interface Replica {
  readonly execution: Execution;
  readonly keeper: LeaseKeeper;
  readonly store: RedisOrderStore;
  readonly events: RecordingEvents;
  readonly owner: string;
}

/** One "process": journal, leases and execution on `redis` under `prefix`, talking to `client`. */
export async function replica(opts: {
  redis: Redis; prefix: string; client: HttpExchangeClient; owner: string; scopes: readonly (readonly [string, string])[];
  settings?: Partial<ExecutionSettings>; leaseTtlMs?: number; replicaAcks?: { replicas: number; timeoutMs: number };
}): Promise<Replica> {
  const keys = StoreKeys.forApiKey(API_KEY, opts.prefix);
  const clock = new SystemClock();
  const store = new RedisOrderStore({ redis: opts.redis, keys, clock, replicaAcks: opts.replicaAcks });
  const leaseStore = new RedisLeaseStore(opts.redis, keys);
  const keeper = new LeaseKeeper({ store: leaseStore, owner: opts.owner, ttlMs: opts.leaseTtlMs ?? 5000 });
  for (const [strategy, market] of opts.scopes) keeper.want(strategy, market);
  await keeper.tick();
  const events = new RecordingEvents();
  const execution = buildExecution({
    exchange: opts.client, store, leases: keeper, leaseStore, owner: opts.owner, risk: ALLOW_ALL, clock, events,
    markets: [MARKET], requestTimeoutMs: 1000, maxLimiterWaitMs: 0, inFlightMarginMs: 500, reconcileRetryMs: 100,
    ...opts.settings,
  });
  return { execution, keeper, store, events, owner: opts.owner };
}

export function stopLimit(strategy: string, candleTime: number, over: Partial<Intent> = {}): StampedIntent {
  return {
    strategy, interval: '1m', candleTime,
    intent: {
      kind: 'stop_limit', market: MARKET, side: 'buy', amount: new Decimal('0.1'), price: new Decimal('105.5'),
      activationPrice: new Decimal('105'), ...over,
    } as Intent,
  };
}

export function oco(strategy: string, candleTime: number, over: Partial<Intent> = {}): StampedIntent {
  return {
    strategy, interval: '1m', candleTime,
    intent: {
      kind: 'oco', market: MARKET, side: 'sell', amount: new Decimal('0.2'), price: new Decimal('110'),
      activationPrice: new Decimal('95'), stopLimitPrice: new Decimal('94.5'), ...over,
    } as Intent,
  };
}

/**
 * OCO `i` of a batch sent while the venue's clock stands at `now`: from a candle that has closed by
 * then (nothing is sent for an open candle; an OCO whose answer is lost is found by its fingerprint,
 * created after its candle closed), with its own prices.
 */
export function ocoOfBatch(strategy: string, now: number, i: number, over: Partial<Intent> = {}): StampedIntent {
  return oco(strategy, now - (i + 1) * 60, {
    activationPrice: new Decimal(95 - i / 10), stopLimitPrice: new Decimal(94.5 - i / 10), ...over,
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns true (bounded; no timing is asserted). */
export async function until(fn: () => Promise<boolean> | boolean, attempts = 200, everyMs = 50): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await fn()) return;
    await sleep(everyMs);
  }
  throw new Error('condition not reached');
}
