import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { loadCsvRows, rowToCandle } from '../../../src/candle-files/csv-candles';
import { parseFillModel, type FillModel } from '../../../src/domain/fill-model';
import { SimEngine } from '../../../src/simulator/engine/sim-engine';
import { simMarketInfo } from '../../../src/simulator/sim-markets';
import { sharedDataFile } from '../../helpers/shared-data';

const D = (v: string) => new Decimal(v);
const KEY = 'k1';
const M = 'BTC_USDT';
const T0 = 1_700_000_040;

function setup(fillModel?: Partial<FillModel>) {
  const clock = new ManualClock(T0 * 1000);
  const model = parseFillModel({});
  if (!model.ok) throw new Error('default fill model');
  const engine = new SimEngine({ clock, markets: [simMarketInfo(M)], fillModel: { ...model.model, ...fillModel } });
  engine.openAccount(KEY, { trading: { USDT: '10000', BTC: '2' }, collateral: { USDT: '10000' } });
  engine.setLastPrice(M, D('100'));
  return { engine, clock };
}

function candle(time: number, o: string, h: string, l: string, c: string, volume: string) {
  return { time, open: D(o), high: D(h), low: D(l), close: D(c), volume: D(volume) };
}

const bal = (engine: SimEngine, currency: string, wallet: 'trading' | 'collateral' = 'trading') => {
  const e = (wallet === 'trading' ? engine.tradingBalances(KEY) : engine.collateralBalances(KEY)).get(currency)!;
  return [e.available.toString(), e.freeze.toString()];
};

describe('partial fills: a share of each candle volume', () => {
  test('a resting sell limit fills 10 % of each candle volume, one deal per candle, the rest from the next open; funds exact', () => {
    const { engine } = setup();
    const order = engine.placeLimit(KEY, { market: M, side: 'sell', amount: D('1'), price: D('105'), clientOrderId: 'big' });
    // Volume 2 BTC: 0.2 of it may fill here, at the limit as the path passes 105.
    const first = engine.applyCandle(M, candle(T0, '100', '106', '99', '104', '2'), 60);
    expect(first.map((e) => e.type)).toEqual(['filled']);
    expect([order.status, order.left.toString(), order.dealStock.toString(), order.dealMoney.toString()]).toEqual(['OPEN', '0.8', '0.2', '21']);
    expect(bal(engine, 'BTC')).toEqual(['1', '0.8']);
    expect(bal(engine, 'USDT')).toEqual(['10020.979', '0']); // 21 - maker fee 0.021
    // The price stays above 105: the rest is crossed and fills at the next open (106), again 10 % of the volume (3 BTC).
    engine.applyCandle(M, candle(T0 + 60, '106', '107', '105.5', '106.5', '3'), 60);
    expect([order.left.toString(), order.dealStock.toString(), order.dealMoney.toString()]).toEqual(['0.5', '0.5', '52.8']);
    const deals = engine.deals(KEY);
    expect(deals.map((d) => [d.amount.toString(), d.price.toString(), d.role, d.time])).toEqual([
      ['0.3', '106', 1, T0 + 120], ['0.2', '105', 1, T0 + 60],
    ]);
    // Partly filled, then cancelled: the frozen rest comes back; the deals stay.
    const canceled = engine.cancelOrder(KEY, M, { clientOrderId: 'big' });
    expect([canceled.status, canceled.left.toString(), canceled.dealStock.toString()]).toEqual(['CANCELED', '0.5', '0.5']);
    expect(bal(engine, 'BTC')).toEqual(['1.5', '0']);
    expect(bal(engine, 'USDT')).toEqual(['10052.7472', '0']); // 52.8 - fees 0.021 + 0.0318
    expect(engine.orderHistory(KEY)[0]).toBe(order);
  });

  test('a buy filled in parts spends exactly price x amount + fee per deal, then releases the rest of its freeze', () => {
    const { engine } = setup();
    const order = engine.placeLimit(KEY, { market: M, side: 'buy', amount: D('0.9'), price: D('95') });
    expect(bal(engine, 'USDT')).toEqual(['9914.4145', '85.5855']); // 0.9 x 95 x 1.001
    engine.applyCandle(M, candle(T0, '100', '101', '94', '96', '4'), 60); // 0.4 at 95
    engine.applyCandle(M, candle(T0 + 60, '96', '97', '94.5', '95', '3'), 60); // 0.3 at 95
    expect([order.left.toString(), order.dealStock.toString()]).toEqual(['0.2', '0.7']);
    // spent 0.7 x 95 = 66.5 + maker fee 0.0665; still frozen: 85.5855 - 66.5665
    expect(bal(engine, 'USDT')).toEqual(['9914.4145', '19.019']);
    expect(bal(engine, 'BTC')).toEqual(['2.7', '0']);
    engine.applyCandle(M, candle(T0 + 120, '95', '95', '90', '91', '5'), 60); // the last 0.2 at the open 95
    expect([order.status, order.left.toString()]).toEqual(['FILLED', '0']);
    expect(bal(engine, 'USDT')).toEqual(['9914.4145', '0']); // 10000 - 0.9 x 95 - 0.0855 fees
    expect(engine.deals(KEY)).toHaveLength(3);
  });

  test('the share is shared by the market orders (older first) and rounded down to the amount step', () => {
    const { engine } = setup();
    const older = engine.placeLimit(KEY, { market: M, side: 'sell', amount: D('0.1'), price: D('101') });
    const newer = engine.placeLimit(KEY, { market: M, side: 'sell', amount: D('0.1'), price: D('101') });
    // 10 % of 1.2345678 = 0.12345678: 0.1 to the older, 0.023456 (6 decimals) to the newer.
    engine.applyCandle(M, candle(T0, '100', '102', '100', '101', '1.2345678'), 60);
    expect([older.status, newer.dealStock.toString(), newer.left.toString()]).toEqual(['FILLED', '0.023456', '0.076544']);
  });

  test('a candle without volume fills nothing; volumeShare null (off) fills completely as before', () => {
    const { engine } = setup();
    const order = engine.placeLimit(KEY, { market: M, side: 'sell', amount: D('1'), price: D('101') });
    engine.applyCandle(M, candle(T0, '100', '102', '100', '101', '0'), 60);
    expect(order.dealStock.toString()).toBe('0');
    const off = setup({ volumeShare: null }).engine;
    const whole = off.placeLimit(KEY, { market: M, side: 'sell', amount: D('1'), price: D('101') });
    off.applyCandle(M, candle(T0, '100', '102', '100', '101', '0.001'), 60);
    expect(whole.status).toBe('FILLED');
  });

  test('an order marketable on arrival takes a share of the last closed candle volume; the rest rests and fills from the next open', () => {
    const { engine } = setup();
    engine.applyCandle(M, candle(T0, '100', '100', '100', '100', '3'), 60);
    const order = engine.placeLimit(KEY, { market: M, side: 'buy', amount: D('0.5'), price: D('101') });
    expect([order.status, order.dealStock.toString(), engine.deals(KEY)[0]!.role]).toEqual(['OPEN', '0.3', 2]);
    // The liquidity until the next candle is used up: a second arrival waits too.
    const second = engine.placeLimit(KEY, { market: M, side: 'buy', amount: D('0.1'), price: D('101') });
    expect(second.dealStock.toString()).toBe('0');
    engine.applyCandle(M, candle(T0 + 60, '100.5', '101', '100', '100.5', '10'), 60);
    expect([order.status, second.status]).toEqual(['FILLED', 'FILLED']);
    expect(engine.deals(KEY).slice(0, 2).map((d) => [d.price.toString(), d.role])).toEqual([['100.5', 1], ['100.5', 1]]);
  });

  test('before any candle has closed there is no volume to take: a marketable order waits for the first one', () => {
    const { engine } = setup();
    const order = engine.placeLimit(KEY, { market: M, side: 'buy', amount: D('0.1'), price: D('101') });
    expect([order.status, order.dealStock.toString()]).toEqual(['OPEN', '0']);
    engine.applyCandle(M, candle(T0, '100', '100', '100', '100', '3'), 60);
    expect(order.status).toBe('FILLED');
  });
});

describe('OCO: the other leg is cancelled when a leg executes', () => {
  const sellOco = (engine: SimEngine) => engine.placeOco(KEY, {
    market: M, side: 'sell', amount: D('0.5'), price: D('110'), activationPrice: D('95'), stopLimitPrice: D('96'), clientOrderId: 'oco',
  });

  test('a stop-loss that triggers without trading leaves the take-profit open; its first deal cancels it', () => {
    const { engine } = setup();
    const group = sellOco(engine);
    // Down to 94: the stop triggers at 95; its limit 96 is above, so it rests and nothing trades.
    engine.applyCandle(M, candle(T0, '100', '100', '94', '94.5', '100'), 60);
    expect([group.stopLoss.activated, group.stopLoss.status, group.takeProfit.status]).toEqual([true, 'OPEN', 'OPEN']);
    expect(engine.activeOcos(KEY)).toHaveLength(1);
    // Back up through 96: the stop-loss limit executes, and only then the take-profit is cancelled.
    const events = engine.applyCandle(M, candle(T0 + 60, '94.5', '97', '94.5', '96.5', '100'), 60);
    expect(events.map((e) => `${e.type}:${e.order.type}`)).toEqual(['filled:margin stop limit', 'canceled:margin limit']);
    expect(bal(engine, 'USDT', 'collateral')).toEqual(['10047.952', '0']); // 0.5 x 96 - 0.048
  });

  test("ocoCancelOn 'trigger' (the old model): the trigger alone cancels the take-profit", () => {
    const { engine } = setup({ ocoCancelOn: 'trigger' });
    const group = sellOco(engine);
    engine.applyCandle(M, candle(T0, '100', '100', '94', '94.5', '100'), 60);
    expect([group.stopLoss.status, group.takeProfit.status]).toEqual(['OPEN', 'CANCELED']);
  });

  test('a leg filling in parts cancels the other at its first deal and keeps the shared margin until it ends', () => {
    const { engine } = setup();
    const group = sellOco(engine);
    expect(bal(engine, 'USDT', 'collateral')).toEqual(['9944.945', '55.055']); // 0.5 x 110 x 1.001
    engine.applyCandle(M, candle(T0, '100', '111', '100', '110', '2'), 60); // 0.2 of the take-profit at 110
    expect([group.takeProfit.status, group.takeProfit.dealStock.toString(), group.stopLoss.status]).toEqual(['OPEN', '0.2', 'CANCELED']);
    expect(bal(engine, 'USDT', 'collateral')).toEqual(['9966.923', '55.055']);
    engine.cancelOco(KEY, M, { orderId: group.id });
    expect(group.takeProfit.status).toBe('CANCELED');
    expect(bal(engine, 'USDT', 'collateral')).toEqual(['10021.978', '0']);
    expect(bal(engine, 'BTC', 'collateral')).toEqual(['-0.2', '0']);
  });
});

describe('gaps: what a jump crosses acts at the first price that traded beyond it', () => {
  test('constructed gap: a sell stop fills at the gap open, a buy limit fills at the open (better than its limit)', () => {
    const { engine } = setup();
    const stop = engine.placeStopLimit(KEY, { market: M, side: 'sell', amount: D('0.1'), price: D('90'), activationPrice: D('97') });
    const limit = engine.placeLimit(KEY, { market: M, side: 'buy', amount: D('0.1'), price: D('95') });
    // The previous close is 100; the next candle opens at 93: 97 and 95 never traded.
    const events = engine.applyCandle(M, candle(T0, '93', '94', '92', '93.5', '100'), 60);
    expect(events.map((e) => `${e.type}:${e.order.id}`)).toEqual([`triggered:${stop.id}`, `filled:${stop.id}`, `filled:${limit.id}`]);
    expect([stop.dealMoney.toString(), engine.deals(KEY)[1]!.role]).toEqual(['9.3', 2]); // taker at 93, not at the trigger 97
    expect([limit.dealMoney.toString(), engine.deals(KEY)[0]!.role]).toEqual(['9.3', 1]);
  });

  test('without a gap the trigger price is where the stop fills (the path passed through it)', () => {
    const { engine } = setup();
    const stop = engine.placeStopLimit(KEY, { market: M, side: 'sell', amount: D('0.1'), price: D('90'), activationPrice: D('97') });
    engine.applyCandle(M, candle(T0, '100', '100', '92', '93', '100'), 60);
    expect(stop.dealMoney.toString()).toBe('9.7');
  });

  test("the real 120-minute gap of 2021-09-29 (BTC/USDT 1m): a stop crossed by it fills at the gap candle's open", async () => {
    const rows = await loadCsvRows(sharedDataFile('btc_usdt-1m-binance-2021-09.csv'));
    const at = rows.findIndex((r, i) => i > 0 && r.time - rows[i - 1]!.time === 121 * 60);
    expect(at).toBeGreaterThan(0);
    const before = rowToCandle(rows[at - 1]!);
    const after = rowToCandle(rows[at]!);
    expect([before.time, before.close.toString(), after.time, after.open.toString()]).toEqual([1632898740, '42450.25', 1632906000, '42442']);

    const clock = new ManualClock(before.time * 1000);
    const engine = new SimEngine({ clock, markets: [simMarketInfo(M)] });
    engine.openAccount(KEY, { trading: { USDT: '100000', BTC: '1' } });
    engine.setLastPrice(M, before.open);
    engine.applyCandle(M, before, 60);
    const stop = engine.placeStopLimit(KEY, { market: M, side: 'sell', amount: D('0.01'), price: D('42400'), activationPrice: D('42445') });
    const bid = engine.placeLimit(KEY, { market: M, side: 'buy', amount: D('0.01'), price: D('42446') });
    clock.setMs((after.time + 60) * 1000);
    engine.applyCandle(M, after, 60);
    // 42445 and 42446 never traded: the market went from 42450.25 straight to 42442.0 two hours later.
    expect([stop.status, stop.dealMoney.toString(), bid.status, bid.dealMoney.toString()]).toEqual(['FILLED', '424.42', 'FILLED', '424.42']);
    expect(engine.deals(KEY).map((d) => [d.price.toString(), d.time])).toEqual([['42442', 1632906060], ['42442', 1632906060]]);
  }, 30_000); // reads a month of 1m candles
});

describe('parseFillModel', () => {
  test('defaults, "off", and clear refusals', () => {
    const ok = (t: Parameters<typeof parseFillModel>[0]) => {
      const r = parseFillModel(t);
      if (!r.ok) throw new Error(r.reason);
      return [r.model.volumeShare?.toString() ?? null, r.model.ocoCancelOn];
    };
    expect(ok({})).toEqual(['0.1', 'execution']);
    expect(ok({ volumeShare: 'off', ocoCancelOn: 'trigger' })).toEqual([null, 'trigger']);
    expect(ok({ volumeShare: '1' })).toEqual(['1', 'execution']);
    expect(parseFillModel({ volumeShare: '0' })).toMatchObject({ ok: false, field: 'volumeShare' });
    expect(parseFillModel({ volumeShare: '1.5' })).toMatchObject({ ok: false, field: 'volumeShare' });
    expect(parseFillModel({ volumeShare: '1e-2' })).toMatchObject({ ok: false, field: 'volumeShare' });
    expect(parseFillModel({ ocoCancelOn: 'fill' })).toMatchObject({ ok: false, field: 'ocoCancelOn', reason: expect.stringContaining('execution, trigger') });
  });
});
