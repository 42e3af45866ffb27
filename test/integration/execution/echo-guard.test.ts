import { SystemClock } from '../../../src/core/clock';
import { ClientOrderIdIgnoredError } from '../../../src/domain/errors';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import type { DialectName } from '../../../src/exchange/wire/dialects';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { RedisTestContext } from '../store/redis-test-context';
import { API_KEY, API_SECRET, MARKET, oco, replica, startSim, stopLimit, T0, type Replica } from './harness';

/**
 * The client-id echo guard against a real simulator speaking the OTHER wire dialect and, like the
 * live venue, silently ignoring body fields it does not know (`unknownFields: 'ignore'`): our client
 * order id is dropped, the order is created anyway, and its answer comes back in the other dialect's
 * shape. The guard must cancel it by its exchange id, journal what happened and raise the event the
 * daemon halts on (its wiring: test/integration/app/trading-halts.test.ts).
 */
const ctx = new RedisTestContext();
let sim: SimulatedExchange;
let r: Replica;

function client(url: string, dialect: DialectName): HttpExchangeClient {
  const clock = new SystemClock();
  return new HttpExchangeClient({
    baseUrl: url, primaryRegion: 'global', credentials: { apiKey: API_KEY, apiSecret: API_SECRET }, dialect,
    nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 2000,
  });
}

afterEach(async () => {
  r?.execution.reconciler.stop();
  await sim?.close();
  await ctx.cleanup();
});

describe.each([
  ['venue', 'spec'],
  ['spec', 'venue'],
] as const)('daemon speaking %s, venue speaking %s (unknown fields ignored)', (ours, theirs) => {
  beforeEach(async () => {
    sim = await startSim({ dialect: theirs, unknownFields: 'ignore' });
    r = await replica({ redis: await ctx.client(), prefix: ctx.prefix(), client: client(sim.url, ours), owner: 'echo', scopes: [['alpha', MARKET], ['beta', MARKET]] });
    // A full mismatch also breaks the first reconciliation (the OCO list lives at another path), so
    // a daemon would not even start trading; the guard is the net for a create that gets through.
    r.execution.readiness.markReconciled();
  });

  test('stop-limit: created without our id, canceled by its exchange id, journaled canceled, ClientOrderIdIgnored raised', async () => {
    const result = await r.execution.executor.submit(stopLimit('alpha', T0));
    expect(result.outcome).toBe('rejected');
    expect((result as { reason: string }).reason).toContain('TB_ERR_CLIENT_ORDER_ID_IGNORED');
    expect((result as { reason: string }).reason).toContain('exchange.dialect');

    // On the venue: the order exists WITHOUT our client id, and it is canceled.
    expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
    const history = sim.engine.orderHistory(API_KEY);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ status: 'CANCELED', clientOrderId: '' });

    const [record] = (result as { records: readonly { clientOrderId: string }[] }).records;
    expect(await r.store.get(record!.clientOrderId)).toMatchObject({ status: 'canceled', orderId: history[0]!.id, filledAmount: '0' });
    const [event] = r.events.ofType('ClientOrderIdIgnored');
    expect(event).toMatchObject({ clientOrderId: record!.clientOrderId, market: MARKET, canceled: true });
    expect(event!.reason).toContain(`answered in the ${theirs} dialect`);
    expect(event!.reason).toContain(`exchange.dialect (now "${ours}")`);
  });

  test('OCO: both legs canceled through the OCO id and journaled canceled', async () => {
    const result = await r.execution.executor.submit(oco('beta', T0));
    expect(result.outcome).toBe('rejected');
    expect(sim.engine.activeOcos(API_KEY)).toHaveLength(0);
    const legs = (result as { records: readonly { clientOrderId: string }[] }).records;
    expect(legs).toHaveLength(2);
    for (const leg of legs) expect(await r.store.get(leg.clientOrderId)).toMatchObject({ status: 'canceled' });
    expect(r.events.ofType('ClientOrderIdIgnored')).toEqual([expect.objectContaining({ canceled: true, market: MARKET })]);
  });
});

test('the plain client throws ClientOrderIdIgnoredError naming the order, the dialects and the cancel', async () => {
  sim = await startSim({ dialect: 'spec', unknownFields: 'ignore' });
  const venueClient = client(sim.url, 'venue');
  const error = await venueClient.placeStopLimit({
    market: MARKET, side: 'buy', amount: '0.1', price: '105.5', activationPrice: '105', clientOrderId: 'tb-check-1',
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ClientOrderIdIgnoredError);
  const e = error as ClientOrderIdIgnoredError;
  const [created] = sim.engine.orderHistory(API_KEY);
  expect(e.context).toMatchObject({
    endpoint: 'stopLimit', market: MARKET, sentClientOrderId: 'tb-check-1', dialect: 'venue', answeredIn: 'spec', canceled: true, orderId: created!.id,
  });
  expect(e.legs[0]).toMatchObject({ orderId: created!.id, status: 'CANCELED' });
});

test('a simulator in the other dialect that refuses unknown fields (the default) creates nothing', async () => {
  sim = await startSim({ dialect: 'spec' });
  r = await replica({ redis: await ctx.client(), prefix: ctx.prefix(), client: client(sim.url, 'venue'), owner: 'echo', scopes: [['alpha', MARKET]] });
  r.execution.readiness.markReconciled();
  const result = await r.execution.executor.submit(stopLimit('alpha', T0));
  expect(result.outcome).toBe('rejected');
  expect((result as { reason: string }).reason).toContain('TB_ERR_EXCHANGE_VALIDATION');
  expect(sim.engine.orderHistory(API_KEY)).toHaveLength(0);
  expect(sim.engine.activeOrders(API_KEY)).toHaveLength(0);
});
