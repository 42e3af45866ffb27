import type { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { InvalidTransitionError, LeaseLostError, RequestValidationError } from '../../../src/domain/errors';
import { LIVE_STATUSES, ORDER_EVENTS, ORDER_STATUSES, TRANSITIONS, type OrderEventType, type OrderStatus } from '../../../src/domain/order-state';
import type { Lease, LeaseStore } from '../../../src/store/lease-store-port';
import { HISTORY_MAX, type NewOrderRecord, type OrderStore } from '../../../src/store/order-store-port';

/**
 * The OrderStore + LeaseStore contract, written once and run against every adapter
 * (order-store.redis.test.ts, order-store.memory.test.ts). Each test gets fresh, empty stores.
 */
export interface StoreAdapter {
  readonly orders: OrderStore;
  readonly leases: LeaseStore;
  /** Drives record timestamps (and, in memory, lease expiry). */
  readonly clock: ManualClock;
  /** Lets `ms` pass for lease TTLs (real sleep for Redis, clock advance in memory). */
  passLeaseTime(ms: number): Promise<void>;
  close(): Promise<void>;
}

let seq = 0;
export function newOrder(overrides: Partial<NewOrderRecord> = {}): NewOrderRecord {
  seq++;
  return {
    clientOrderId: `tb-test-${seq}-${Math.random().toString(36).slice(2, 8)}`,
    strategy: 'sma-cross',
    market: 'BTC_USDT',
    side: 'buy',
    kind: 'stop_limit',
    amount: new Decimal('0.00100'),
    price: '41000.5',
    activationPrice: new Decimal('41000'),
    candleTime: 1_700_000_000,
    ...overrides,
  };
}

/** Shortest event path from `pending` to every status, found by walking the table itself. */
function pathsFromPending(): Map<OrderStatus, OrderEventType[]> {
  const paths = new Map<OrderStatus, OrderEventType[]>([['pending', []]]);
  const queue: OrderStatus[] = ['pending'];
  while (queue.length > 0) {
    const from = queue.shift() as OrderStatus;
    for (const [event, to] of Object.entries(TRANSITIONS[from]) as [OrderEventType, OrderStatus][]) {
      if (!paths.has(to)) {
        paths.set(to, [...(paths.get(from) as OrderEventType[]), event]);
        queue.push(to);
      }
    }
  }
  return paths;
}

export function orderStoreContract(adapterName: string, makeAdapter: () => Promise<StoreAdapter>): void {
  describe(`OrderStore + LeaseStore contract: ${adapterName}`, () => {
    let a: StoreAdapter;
    let lease: Lease;

    beforeEach(async () => {
      a = await makeAdapter();
      lease = (await a.leases.acquire('sma-cross', 'BTC_USDT', 'replica-a', 60_000)) as Lease;
    });
    afterEach(async () => {
      await a.close();
    });

    /** An order in `status`, reached through the table's events. */
    async function orderIn(status: OrderStatus): Promise<string> {
      const path = pathsFromPending().get(status);
      if (!path) throw new Error(`status ${status} unreachable from pending`);
      const input = newOrder();
      await a.orders.recordIntent(input);
      for (const event of path) await a.orders.transition(input.clientOrderId, event, {}, event === 'send' ? { lease } : {});
      return input.clientOrderId;
    }

    test('recordIntent journals a pending record with normalized decimals and one history entry', async () => {
      a.clock.setMs(1_000);
      const input = newOrder({ stopLimitPrice: '40900.10', kind: 'oco_sl', reason: 'sma cross up' });
      const { created, record } = await a.orders.recordIntent(input);
      expect(created).toBe(true);
      expect(record).toMatchObject({
        clientOrderId: input.clientOrderId, strategy: 'sma-cross', market: 'BTC_USDT', side: 'buy', kind: 'oco_sl',
        amount: '0.001', price: '41000.5', activationPrice: '41000', stopLimitPrice: '40900.1', candleTime: 1_700_000_000,
        status: 'pending', orderId: undefined, ocoId: undefined, filledAmount: '0', createdAtMs: 1_000, updatedAtMs: 1_000,
        reason: 'sma cross up', fencingToken: undefined,
      });
      // Both clocks: the stores are built without a market clock here, so it reads the wall one.
      expect(record.history).toEqual([{ atMs: 1_000, marketMs: 1_000, event: 'record', from: null, to: 'pending' }]);
      expect(await a.orders.get(input.clientOrderId)).toEqual(record);
    });

    test('replaying an intent returns the existing record and never creates a second one', async () => {
      const input = newOrder();
      const first = await a.orders.recordIntent(input);
      a.clock.advanceMs(5_000);
      const again = await a.orders.recordIntent({ ...input, amount: '999' });
      expect(again.created).toBe(false);
      expect(again.record).toEqual(first.record);
      const submitted = await a.orders.recordSubmit(input, lease);
      expect(submitted.created).toBe(false);
      expect(submitted.record.status).toBe('pending');
      expect(await a.orders.listAll(10)).toHaveLength(1);
    });

    test('invalid records are refused before anything is written', async () => {
      const bad = newOrder({ clientOrderId: 'has space', amount: '-1' });
      await expect(a.orders.recordIntent(bad)).rejects.toBeInstanceOf(RequestValidationError);
      await expect(a.orders.recordIntent(newOrder({ price: 'NaN' }))).rejects.toThrow(/price/);
      expect(await a.orders.listAll(10)).toEqual([]);
    });

    test('the strategy version and parameters that placed an order are kept, and checked', async () => {
      const input = newOrder({ strategyVersion: '0123456789ab', strategyParams: '{"fast":10,"slow":30}' });
      const { record } = await a.orders.recordSubmit(input, lease);
      expect([record.strategyVersion, record.strategyParams]).toEqual(['0123456789ab', '{"fast":10,"slow":30}']);
      expect((await a.orders.get(input.clientOrderId))?.strategyVersion).toBe('0123456789ab');
      await expect(a.orders.recordIntent(newOrder({ strategyVersion: 'not-a-hash' }))).rejects.toMatchObject({ fieldErrors: { strategyVersion: expect.any(Array) } });
      await expect(a.orders.recordIntent(newOrder({ strategyParams: 'x'.repeat(5000) }))).rejects.toMatchObject({ fieldErrors: { strategyParams: expect.any(Array) } });
    });

    test('recordSubmit creates the record directly in submitted under the fencing token', async () => {
      const input = newOrder();
      const { created, record } = await a.orders.recordSubmit(input, lease);
      expect(created).toBe(true);
      expect(record.status).toBe('submitted');
      expect(record.fencingToken).toBe(lease.token);
      expect(record.history).toEqual([expect.objectContaining({ event: 'send', from: 'pending', to: 'submitted' })]);
      expect(await a.orders.countLive('sma-cross', 'BTC_USDT')).toBe(1);
      const replay = await a.orders.recordSubmit(input, lease);
      expect(replay).toEqual({ created: false, record });
      expect(await a.orders.countLive('sma-cross', 'BTC_USDT')).toBe(1);
    });

    test('every legal transition of the table lands on the table\'s status', async () => {
      for (const from of ORDER_STATUSES) {
        for (const [event, to] of Object.entries(TRANSITIONS[from]) as [OrderEventType, OrderStatus][]) {
          const id = await orderIn(from);
          const record = await a.orders.transition(id, event, { reason: `${from}+${event}` }, event === 'send' ? { lease } : {});
          expect({ from, event, to: record.status }).toEqual({ from, event, to });
          expect(record.history.at(-1)).toMatchObject({ event, from, to, reason: `${from}+${event}` });
          expect(LIVE_STATUSES.has(to)).toBe((await a.orders.listLive()).some((r) => r.clientOrderId === id));
        }
      }
    });

    test('every illegal transition throws InvalidTransitionError and changes nothing', async () => {
      for (const from of ORDER_STATUSES) {
        const illegal = ORDER_EVENTS.filter((e) => TRANSITIONS[from][e] === undefined);
        if (illegal.length === 0) continue;
        const id = await orderIn(from);
        const before = await a.orders.get(id);
        for (const event of illegal) {
          await expect(a.orders.transition(id, event, { orderId: 1 }, { lease })).rejects.toBeInstanceOf(InvalidTransitionError);
        }
        expect(await a.orders.get(id)).toEqual(before);
      }
    });

    test('an unknown client order id is an InvalidTransitionError', async () => {
      await expect(a.orders.transition('tb-nope', 'accept')).rejects.toBeInstanceOf(InvalidTransitionError);
      expect(await a.orders.get('tb-nope')).toBeUndefined();
    });

    test('a wrong expectedStatus guess falls back to the stored status', async () => {
      const id = await orderIn('open');
      const record = await a.orders.transition(id, 'fill', { filledAmount: '0.0010' }, { expectedStatus: 'submitted' });
      expect(record.status).toBe('filled');
      expect(record.filledAmount).toBe('0.001');
      // a guess from which the event is illegal is re-checked against the store too
      const id2 = await orderIn('open');
      expect((await a.orders.transition(id2, 'request_cancel', {}, { expectedStatus: 'pending' })).status).toBe('cancel_pending');
    });

    test('a patch sets venue ids, filled amount and reason; history stays bounded', async () => {
      const input = newOrder();
      await a.orders.recordSubmit(input, lease);
      a.clock.setMs(7_000);
      const accepted = await a.orders.transition(input.clientOrderId, 'accept', { orderId: 117703764513, ocoId: 42 }, { expectedStatus: 'submitted' });
      expect(accepted).toMatchObject({ status: 'open', orderId: 117703764513, ocoId: 42, updatedAtMs: 7_000 });
      for (let i = 0; i < HISTORY_MAX + 5; i++) await a.orders.transition(input.clientOrderId, 'accept', {}, { expectedStatus: 'open' });
      const partial = await a.orders.transition(input.clientOrderId, 'fill_partially', { filledAmount: new Decimal('0.0005') });
      expect(partial.history).toHaveLength(HISTORY_MAX);
      expect(partial.history.at(-1)).toMatchObject({ event: 'fill_partially', from: 'open', to: 'partially_filled' });
      expect(partial).toMatchObject({ filledAmount: '0.0005', orderId: 117703764513 });
    });

    test('send requires the current lease: none, another scope, or a superseded token is refused', async () => {
      const input = newOrder();
      await a.orders.recordIntent(input);
      await expect(a.orders.transition(input.clientOrderId, 'send')).rejects.toBeInstanceOf(LeaseLostError);
      const other = (await a.leases.acquire('sma-cross', 'ETH_USDT', 'replica-a', 60_000)) as Lease;
      await expect(a.orders.transition(input.clientOrderId, 'send', {}, { lease: other })).rejects.toBeInstanceOf(LeaseLostError);
      await expect(a.orders.recordSubmit(newOrder(), other)).rejects.toBeInstanceOf(LeaseLostError);
      expect((await a.orders.get(input.clientOrderId))?.status).toBe('pending');
      expect((await a.orders.transition(input.clientOrderId, 'send', {}, { lease })).status).toBe('submitted');
    });

    test('a dead owner\'s lease is taken over at once when the caller names it; a live one only after its TTL', async () => {
      // replica-a holds it (beforeEach). Naming someone else as dead changes nothing.
      expect(await a.leases.acquire('sma-cross', 'BTC_USDT', 'replica-b', 60_000, 'replica-z')).toBeUndefined();
      const taken = (await a.leases.acquire('sma-cross', 'BTC_USDT', 'replica-b', 60_000, 'replica-a')) as Lease;
      expect(taken.owner).toBe('replica-b');
      expect(taken.token).toBeGreaterThan(lease.token); // a new token: the dead owner's writes are fenced off
      const input = newOrder();
      await expect(a.orders.recordSubmit(input, lease)).rejects.toBeInstanceOf(LeaseLostError);
      await expect(a.leases.renew(lease)).rejects.toBeInstanceOf(LeaseLostError);
    });

    test('lease handover: the old owner\'s token is refused once a new owner acquired', async () => {
      expect(await a.leases.acquire('sma-cross', 'BTC_USDT', 'replica-b', 60_000)).toBeUndefined();
      expect(await a.leases.holder('sma-cross', 'BTC_USDT')).toMatchObject({ owner: 'replica-a', token: lease.token });
      const again = await a.leases.acquire('sma-cross', 'BTC_USDT', 'replica-a', 60_000);
      expect(again?.token).toBe(lease.token); // same owner: same token, longer TTL

      expect(await a.leases.release(lease)).toBe(true);
      expect(await a.leases.release(lease)).toBe(false);
      const b = (await a.leases.acquire('sma-cross', 'BTC_USDT', 'replica-b', 60_000)) as Lease;
      expect(b.token).toBeGreaterThan(lease.token);

      const input = newOrder();
      await expect(a.orders.recordSubmit(input, lease)).rejects.toBeInstanceOf(LeaseLostError);
      expect(await a.orders.get(input.clientOrderId)).toBeUndefined();
      await expect(a.leases.renew(lease)).rejects.toBeInstanceOf(LeaseLostError);
      expect(await a.leases.release(lease)).toBe(false); // never releases someone else's lease
      expect((await a.orders.recordSubmit(input, b)).record.fencingToken).toBe(b.token);
    });

    test('an expired lease can be taken over, with a larger token, and the old token is refused', async () => {
      const short = (await a.leases.acquire('sma-cross', 'SOL_USDT', 'replica-a', 100)) as Lease;
      expect(await a.leases.renew(short, 150)).toMatchObject({ token: short.token, ttlMs: 150 });
      await a.passLeaseTime(300);
      expect(await a.leases.holder('sma-cross', 'SOL_USDT')).toBeUndefined();
      await expect(a.leases.renew(short)).rejects.toBeInstanceOf(LeaseLostError);
      await expect(a.orders.recordSubmit(newOrder({ market: 'SOL_USDT' }), short)).rejects.toBeInstanceOf(LeaseLostError);
      const next = (await a.leases.acquire('sma-cross', 'SOL_USDT', 'replica-b', 60_000)) as Lease;
      expect(next.token).toBeGreaterThan(short.token);
    });

    test('listLive, listByStrategy, listAll and live counts follow the statuses', async () => {
      const other = (await a.leases.acquire('rsi', 'ETH_USDT', 'replica-a', 60_000)) as Lease;
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        a.clock.setMs(10_000 + i);
        const input = newOrder();
        ids.push(input.clientOrderId);
        await a.orders.recordSubmit(input, lease);
      }
      a.clock.setMs(20_000);
      const rsi = newOrder({ strategy: 'rsi', market: 'ETH_USDT' });
      await a.orders.recordSubmit(rsi, other);
      const pending = newOrder();
      await a.orders.recordIntent(pending);
      await a.orders.transition(ids[0] as string, 'reject', { reason: 'Not enough balance.' }, { expectedStatus: 'submitted' });

      expect((await a.orders.listLive()).map((r) => r.clientOrderId)).toEqual([ids[1], ids[2], rsi.clientOrderId]);
      expect((await a.orders.listByStrategy('sma-cross')).map((r) => r.clientOrderId)).toEqual([pending.clientOrderId, ids[2], ids[1], ids[0]]);
      expect((await a.orders.listByStrategy('sma-cross', 2)).map((r) => r.clientOrderId)).toEqual([pending.clientOrderId, ids[2]]);
      expect((await a.orders.listAll(2)).map((r) => r.clientOrderId)).toHaveLength(2);
      expect(await a.orders.listAll(100)).toHaveLength(5);
      expect(await a.orders.listByStrategy('nobody')).toEqual([]);
      expect(await a.orders.countLive('sma-cross', 'BTC_USDT')).toBe(2);
      expect(await a.orders.countLive('rsi', 'ETH_USDT')).toBe(1);
      expect(await a.orders.countLive('rsi', 'BTC_USDT')).toBe(0);
      const counts = await a.orders.liveCounts();
      expect(counts.sort((x, y) => x.strategy.localeCompare(y.strategy))).toEqual([
        { strategy: 'rsi', market: 'ETH_USDT', count: 1 },
        { strategy: 'sma-cross', market: 'BTC_USDT', count: 2 },
      ]);
      await a.orders.transition(rsi.clientOrderId, 'accept');
      await a.orders.transition(rsi.clientOrderId, 'fill', { filledAmount: '0.001' });
      expect(await a.orders.countLive('rsi', 'ETH_USDT')).toBe(0);
      expect((await a.orders.liveCounts()).map((c) => c.strategy)).toEqual(['sma-cross']);
    });
  });
}
