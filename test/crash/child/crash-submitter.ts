/**
 * Child process of the crash test: one "daemon" submitting a burst of intents, killed with SIGKILL
 * at random points and restarted by the test. Each start: connect Redis, take the leases, reconcile
 * FIRST (nothing is submitted before), then submit the whole burst again from the start (the
 * strategy host re-emits its intents after a restart; deterministic client order ids turn the
 * replays into look-ups), then settle every unsettled order and print `done`.
 *
 * Run as: node -r ./register-ts.js crash-submitter.ts   (env below). Prints one line per step.
 */
import { randomUUID } from 'node:crypto';
import { SystemClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import type { Intent } from '../../../src/domain/intent';
import { buildExecution } from '../../../src/execution/kernel/build-execution';
import { LeaseKeeper } from '../../../src/execution/guards/lease-keeper';
import { ALLOW_ALL } from '../../../src/execution/orders/risk-port';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import { StoreKeys } from '../../../src/store/keys';
import { RedisLeaseStore } from '../../../src/store/lease-store';
import { RedisOrderStore } from '../../../src/store/order-store';
import { connectRedis, createRedis } from '../../../src/store/redis';
import { RedisNonceSource } from '../../../src/exchange/nonce/redis-nonce-source';
import type { StampedIntent } from '../../../src/strategy/intent-validation';

const env = (name: string): string => {
  const v = process.env[name];
  if (v === undefined) throw new Error(`missing env ${name}`);
  return v;
};
const SIM_URL = env('CRASH_SIM_URL');
const REDIS_URL = env('CRASH_REDIS_URL');
const PREFIX = env('CRASH_PREFIX');
const API_KEY = env('CRASH_API_KEY');
const API_SECRET = env('CRASH_API_SECRET');
const BURST = Number(env('CRASH_BURST'));
const T0 = Number(env('CRASH_T0'));
const MARKET = 'BTC_USDT';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/**
 * Intent i of the burst: every 10th an OCO sell, the rest stop-limit buys. Same input, same intent.
 * Each OCO has its own prices: an OCO killed mid-send is found at the venue by its fingerprint (its
 * legs carry no client order id), and twenty identical OCOs would rightly be ambiguous.
 */
export function burstIntent(i: number): StampedIntent {
  const candleTime = T0 + i * 60;
  if (i % 10 === 9) {
    const step = new Decimal(i).dividedBy(100);
    return { strategy: 'burst-oco', interval: '1m', candleTime, intent: {
      kind: 'oco', market: MARKET, side: 'sell', amount: new Decimal('0.1'), price: new Decimal('110').plus(step),
      activationPrice: new Decimal('95').minus(step), stopLimitPrice: new Decimal('94.5').minus(step),
    } };
  }
  const intent: Intent = {
    kind: 'stop_limit', market: MARKET, side: 'buy', amount: new Decimal('0.1'),
    price: new Decimal(106).plus(new Decimal(i % 40).dividedBy(10)), activationPrice: new Decimal(105).plus(new Decimal(i % 40).dividedBy(10)),
  };
  return { strategy: 'burst', interval: '1m', candleTime, intent };
}

async function main(): Promise<void> {
  const clock = new SystemClock();
  const redis = createRedis(REDIS_URL, { lazyConnect: true, maxReconnectDelayMs: 200 });
  await connectRedis(redis);
  const keys = StoreKeys.forApiKey(API_KEY, PREFIX);
  const store = new RedisOrderStore({ redis, keys, clock });
  const leaseStore = new RedisLeaseStore(redis, keys);
  const owner = `crash-child:${process.pid}:${randomUUID().slice(0, 8)}`;
  const keeper = new LeaseKeeper({ store: leaseStore, owner, ttlMs: 1000 });
  keeper.want('burst', MARKET);
  keeper.want('burst-oco', MARKET);
  // The killed predecessor's leases expire after their TTL; wait for them.
  while (keeper.heldScopes().length < 2) {
    await keeper.tick();
    if (keeper.heldScopes().length < 2) await sleep(100);
  }
  const renew = setInterval(() => void keeper.tick(), 300);
  // Nonces from Redis: a restarted process must never reuse a nonce its killed predecessor sent.
  const nonceSource = new RedisNonceSource({ redis, prefix: PREFIX, clock });
  const client = new HttpExchangeClient({
    baseUrl: SIM_URL, primaryRegion: 'global', credentials: { apiKey: API_KEY, apiSecret: API_SECRET },
    nonceSource, limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 1000,
  });
  const execution = buildExecution({
    exchange: client, store, leases: keeper, leaseStore, owner, risk: ALLOW_ALL, clock, markets: [MARKET],
    requestTimeoutMs: 1000, maxLimiterWaitMs: 0, inFlightMarginMs: 500,
  });

  for (;;) {
    try {
      const summary = await execution.reconciler.runOnce();
      say(`reconciled ${JSON.stringify(summary.discrepancies)}`);
      break;
    } catch (err) {
      say(`reconcile-failed ${(err as Error).message}`);
      await sleep(100);
    }
  }
  say('ready');

  // Four at a time, so several orders are in flight whenever the kill lands.
  for (let i = 0; i < BURST; i += 4) {
    const batch = Array.from({ length: Math.min(4, BURST - i) }, (_, k) => burstIntent(i + k));
    const results = await Promise.all(batch.map((intent) => execution.executor.submit(intent).catch((err: Error) => ({ outcome: `error ${err.message}` }))));
    say(`batch ${i} ${results.map((r) => r.outcome).join(',')}`);
  }

  for (;;) {
    const counts = await execution.settler.settleAll();
    if (counts.waiting === 0) break;
    await sleep(200);
  }
  await execution.reconciler.runOnce();
  clearInterval(renew);
  await keeper.releaseAll();
  redis.disconnect();
  say('done');
}

main().catch((err: unknown) => {
  say(`fatal ${(err as Error).stack ?? String(err)}`);
  process.exit(2);
});
