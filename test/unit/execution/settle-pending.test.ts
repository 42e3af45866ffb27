import { ManualClock } from '../../../src/core/clock';
import { buildExecution } from '../../../src/execution/kernel/build-execution';
import { LeaseKeeper } from '../../../src/execution/guards/lease-keeper';
import { ALLOW_ALL } from '../../../src/execution/orders/risk-port';
import { InMemoryLeaseStore } from '../../../src/store/memory/in-memory-lease-store';
import { InMemoryOrderStore } from '../../../src/store/memory/in-memory-order-store';
import { InstantExchange } from '../../../bench/executor.bench';

test('pending intents found at start-up: fresh ones resent with the same id, stale ones abandoned; unsettled ones declared not found only after the window', async () => {
  const clock = new ManualClock(1_700_000_000_000);
  const leases = new InMemoryLeaseStore(clock);
  const store = new InMemoryOrderStore(leases, clock);
  const keeper = new LeaseKeeper({ store: leases, owner: 'me', ttlMs: 3_600_000 });
  keeper.want('alpha', 'BTC_USDT');
  await keeper.tick();
  const x = buildExecution({ exchange: new InstantExchange(), store, leases: keeper, risk: ALLOW_ALL, clock, markets: ['BTC_USDT'], requestTimeoutMs: 1000, maxLimiterWaitMs: 0, inFlightMarginMs: 0 });
  const base = { strategy: 'alpha', market: 'BTC_USDT', side: 'buy' as const, kind: 'stop_limit' as const, amount: '0.1', price: '105.5', activationPrice: '105', candleTime: 60 };
  await store.recordIntent({ ...base, clientOrderId: 'tb-old-o' });
  clock.advanceMs(120_000);
  await store.recordIntent({ ...base, clientOrderId: 'tb-fresh-o' });
  // a submitted record whose send never happened (killed between journal and request)
  await store.recordSubmit({ ...base, clientOrderId: 'tb-lost-o' }, keeper.leaseFor('alpha', 'BTC_USDT')!);
  await x.reconciler.runOnce();
  expect(await store.get('tb-lost-o')).toMatchObject({ status: 'submitted' }); // may still be in flight

  const result = await x.settler.settlePending({ resendWithinMs: 60_000, resend: (r) => x.executor.resendPending(r) });
  expect(result).toEqual({ resent: 1, abandoned: 1 });
  expect(await store.get('tb-fresh-o')).toMatchObject({ status: 'open' });
  expect(await store.get('tb-old-o')).toMatchObject({ status: 'canceled' });

  clock.advanceMs(1001);
  await x.reconciler.runOnce();
  expect(await store.get('tb-lost-o')).toMatchObject({ status: 'rejected' });
});
