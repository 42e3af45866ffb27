import { ManualClock } from '../../../../src/core/clock';
import { Decimal } from '../../../../src/domain/decimal';
import type { Candle } from '../../../../src/domain/candle';
import type { OrderStatus } from '../../../../src/domain/order-state';
import type { SubmitResult } from '../../../../src/execution/orders/executor';
import { deriveClientOrderId } from '../../../../src/core/client-order-id';
import { legClientOrderId, TrailingStops, type LegPort } from '../../../../src/execution/trailing/trailing-stops';
import { InMemoryTrailingStore } from '../../../../src/store/memory/in-memory-trailing-store';
import type { OrderRecord } from '../../../../src/store/order-store-port';
import type { StampedIntent } from '../../../../src/strategy/intent-validation';

/** The manager's order of steps with fake legs: what is submitted and cancelled, and when not. */
const d = (v: string): Decimal => new Decimal(v);
const candle = (time: number, high: string, low: string, close = high): Candle =>
  ({ time, open: d(close), high: d(high), low: d(low), close: d(close), volume: d('1'), volumeMoney: d('1') });

function setup(opts: { cancelAnswers?: OrderStatus; filledOnCancel?: boolean; refuse?: { now: string | undefined } } = {}) {
  const orders = new Map<string, OrderRecord>();
  const calls: string[] = [];
  const names = new Map<string, string>();
  const legs: LegPort = {
    submitLeg: async (s: StampedIntent): Promise<SubmitResult> => {
      const i = s.intent;
      if (i.kind !== 'stop_limit') throw new Error('legs are stop-limits');
      const id = deriveClientOrderId({ strategy: s.strategy, market: i.market, candleTime: s.candleTime, tag: i.tag, leg: 'o' });
      names.set(id, `leg-${i.tag ?? ''}`);
      calls.push(`submit leg-${i.tag ?? ''} ${i.activationPrice.toString()} ${i.amount.toString()}`);
      const known = orders.get(id);
      if (known !== undefined) return { outcome: 'existing', records: [known] };
      const record = { clientOrderId: id, status: 'open', filledAmount: '0', orderId: 1 } as unknown as OrderRecord;
      orders.set(id, record);
      return { outcome: 'accepted', records: [record] };
    },
    cancelLeg: async (_strategy, intent): Promise<SubmitResult> => {
      calls.push(`cancel ${names.get(intent.clientOrderId) ?? intent.clientOrderId}`);
      const r = orders.get(intent.clientOrderId)!;
      const status = opts.filledOnCancel === true ? 'filled' : (opts.cancelAnswers ?? 'canceled');
      orders.set(r.clientOrderId, { ...r, status, filledAmount: status === 'filled' ? '0.5' : '0' });
      return { outcome: 'canceled', records: [] };
    },
    wouldRefuse: async () => opts.refuse?.now,
  };
  const store = new InMemoryTrailingStore();
  const clock = new ManualClock(0);
  const make = (): TrailingStops => new TrailingStops({
    store, legs, clock, marketClock: clock, markets: { get: async () => undefined },
    orders: { get: async (id: string) => orders.get(id) },
  });
  const byName = (name: string): string => [...names].find(([, n]) => n === name)![0];
  return { orders, calls, store, make, byName };
}

// Leg ids in this fake come from the leg's tag: leg 0 has the intent's tag, leg n `<tag>#t<n>`.
const stamped: StampedIntent = {
  strategy: 's', interval: '1m', candleTime: 60,
  intent: { kind: 'trailing_stop', market: 'BTC_USDT', side: 'sell', amount: d('0.5'), trail: d('100'), step: d('10'), limitOffset: d('0'), tag: 'x' },
};

async function placed(s: ReturnType<typeof setup>): Promise<TrailingStops> {
  const t = s.make();
  expect(t.onCandle('BTC_USDT', '1m', candle(60, '1000', '990'))).toBeUndefined(); // nothing rests yet
  expect((await t.place(stamped)).outcome).toBe('accepted');
  return t;
}

test('a move: journaled, the old leg cancelled, then the next submitted; small rises do nothing', async () => {
  const s = setup();
  const t = await placed(s);
  expect(await t.onCandle('BTC_USDT', '1m', candle(120, '1005', '995'))).toBe(false);
  expect(await t.onCandle('BTC_USDT', '1m', candle(180, '1030', '1000'))).toBe(true);
  expect(s.calls).toEqual(['submit leg-x 900 0.5', 'cancel leg-x', 'submit leg-x#t1 930 0.5']);
  expect(t.list()[0]).toMatchObject({ phase: 'resting', best: '1030', leg: { leg: 1, trigger: '930', candleTime: 180 } });
  // Another interval's candles do not move it.
  expect(t.onCandle('BTC_USDT', '5m', candle(180, '2000', '1900'))).toBeUndefined();
});

test('a cancel without an answer leaves the move pending: nothing submitted until the old leg is known ended', async () => {
  const s = setup({ cancelAnswers: 'cancel_pending' });
  const t = await placed(s);
  await t.onCandle('BTC_USDT', '1m', candle(120, '1030', '1000'));
  expect(s.calls).toEqual(['submit leg-x 900 0.5', 'cancel leg-x']);
  expect(t.list()[0]).toMatchObject({ phase: 'moving', next: { leg: 1 } });
  // The next candle: the reconciler has since settled it cancelled; the move completes.
  s.orders.set(s.byName('leg-x'), { ...s.orders.get(s.byName('leg-x'))!, status: 'canceled' });
  await t.onCandle('BTC_USDT', '1m', candle(180, '1010', '1000'));
  expect(s.calls.slice(2)).toEqual(['submit leg-x#t1 930 0.5']);
});

test('a leg that filled while being cancelled ends the trailing stop: no new leg', async () => {
  const s = setup({ filledOnCancel: true });
  const t = await placed(s);
  await t.onCandle('BTC_USDT', '1m', candle(120, '1030', '1000'));
  expect(s.calls).toEqual(['submit leg-x 900 0.5', 'cancel leg-x']);
  expect(t.list()).toEqual([]);
  expect(s.store.all()[0]?.endReason).toBe('filled');
});

test('recovery after a crash between the journaled move and the new leg: the old leg cancelled if still open, one new leg', async () => {
  const s = setup();
  const first = await placed(s);
  const record = first.list()[0]!;
  // The crash: the move journaled, nothing else done.
  await s.store.put({ ...record, phase: 'moving', next: { leg: 1, clientOrderId: legClientOrderId(record, 1), candleTime: 120, trigger: '930', price: '930' } });
  const restarted = s.make();
  await restarted.recover();
  expect(s.calls).toHaveLength(1); // nothing before the first candle (the risk checks need its price)
  expect(await restarted.onCandle('BTC_USDT', '1m', candle(180, '1000', '990'))).toBe(true);
  expect(s.calls.slice(1)).toEqual(['cancel leg-x', 'submit leg-x#t1 930 0.5']);
  expect(restarted.list()[0]).toMatchObject({ phase: 'resting', leg: { leg: 1 } });
  // Recovering again submits nothing more (the journal has the leg resting).
  const again = s.make();
  await again.recover();
  await again.onCandle('BTC_USDT', '1m', candle(240, '1000', '990'));
  expect(s.calls).toHaveLength(3);
});

test('a cancel intent naming the trailing stop ends it first, then cancels its leg; other ids are not its business', async () => {
  const s = setup();
  const t = await placed(s);
  expect(await t.cancel('s', { kind: 'cancel', market: 'BTC_USDT', clientOrderId: 'other' })).toBeUndefined();
  const id = t.list()[0]!.id;
  expect((await t.cancel('s', { kind: 'cancel', market: 'BTC_USDT', clientOrderId: id }))?.outcome).toBe('canceled');
  expect(s.calls.slice(1)).toEqual(['cancel leg-x']);
  expect(t.list()).toEqual([]);
  expect((await s.store.get(id))?.endReason).toBe('cancelled by the strategy');
});

test('another strategy naming the trailing stop cannot end it: the manager leaves it to the executor, whose cancel checks the owner', async () => {
  const s = setup();
  const t = await placed(s);
  const id = t.list()[0]!.id;
  expect(await t.cancel('intruder', { kind: 'cancel', market: 'BTC_USDT', clientOrderId: id })).toBeUndefined();
  expect(await t.cancel('s', { kind: 'cancel', market: 'ETH_USDT', clientOrderId: id })).toBeUndefined();
  expect(t.list().map((r) => r.id)).toEqual([id]);
  expect(s.calls.filter((c) => c.startsWith('cancel'))).toEqual([]);
});

test('a move the risk gate would refuse (a halt) is not started: the resting stop stays, the move comes once it would pass', async () => {
  const refuse = { now: 'trading_state: trading is halted (operator): only cancels are allowed' as string | undefined };
  const s = setup({ refuse });
  const t = await placed(s);
  expect(await t.onCandle('BTC_USDT', '1m', candle(120, '1030', '1000'))).toBe(false);
  expect(s.calls).toEqual(['submit leg-x 900 0.5']);
  expect(t.list()[0]).toMatchObject({ phase: 'resting', best: '1030', leg: { leg: 0, trigger: '900' } });
  refuse.now = undefined;
  expect(await t.onCandle('BTC_USDT', '1m', candle(180, '1031', '1000'))).toBe(true);
  expect(s.calls).toEqual(['submit leg-x 900 0.5', 'cancel leg-x', 'submit leg-x#t1 931 0.5']);
});
