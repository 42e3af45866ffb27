import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { ExchangeRejectedError, InsufficientFundsError } from '../../../src/domain/errors';
import { SimEngine } from '../../../src/simulator/engine/sim-engine';
import { simMarketInfo } from '../../../src/simulator/sim-markets';

const D = (v: string) => new Decimal(v);
const KEY = 'k1';
const T0 = 1_700_000_000;

function setup(funding = { USDT: '10000', BTC: '1' }, collateral = { USDT: '10000', BTC: '1' }) {
  const clock = new ManualClock(T0 * 1000);
  const engine = new SimEngine({ clock, markets: [simMarketInfo('BTC_USDT')] });
  engine.openAccount(KEY, { trading: funding, collateral });
  engine.setLastPrice('BTC_USDT', D('100'));
  return { clock, engine };
}

/** A candle with plenty of volume (1,000 BTC): its share covers every order of these tests at once. */
function candle(time: number, o: string, h: string, l: string, c: string, volume = '1000') {
  return { time, open: D(o), high: D(h), low: D(l), close: D(c), volume: D(volume) };
}

function bal(engine: SimEngine, currency: string) {
  const e = engine.tradingBalances(KEY).get(currency)!;
  return { available: e.available.toString(), freeze: e.freeze.toString() };
}

function rejection(fn: () => unknown): ExchangeRejectedError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ExchangeRejectedError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('stop-limit activation', () => {
  test('buy waits for gte, sell for lte; activated flips once', () => {
    const { engine } = setup();
    const buy = engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: D('0.1'), price: D('112'), activationPrice: D('110') });
    const sell = engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'sell', amount: D('0.1'), price: D('89'), activationPrice: D('90') });
    expect(buy.activationCondition).toBe('gte');
    expect(sell.activationCondition).toBe('lte');
    expect([buy.activated, sell.activated]).toEqual([false, false]);

    engine.applyCandle('BTC_USDT', candle(T0, '100', '109', '95', '105'));
    expect([buy.activated, sell.activated]).toEqual([false, false]);

    const events = engine.applyCandle('BTC_USDT', candle(T0 + 60, '105', '111', '104', '108'));
    expect(events.map((e) => e.type)).toEqual(['triggered', 'filled']);
    expect(buy.status).toBe('FILLED');
    // Limit 112 is marketable at the trigger price 110: taker fill at 110.
    expect(buy.dealMoney.toString()).toBe('11');
    expect(engine.deals(KEY)[0]!.role).toBe(2);
    expect(sell.activated).toBe(false);
  });

  test('a triggered stop whose limit is not marketable rests, then fills later on the path', () => {
    const { engine } = setup();
    const order = engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: D('0.1'), price: D('103'), activationPrice: D('105') });
    // open 100 -> high 106 (nearer) -> low 99 -> close 101: triggers at 105, fills on the way down at 103 (maker).
    const events = engine.applyCandle('BTC_USDT', candle(T0, '100', '106', '99', '101'));
    expect(events.map((e) => e.type)).toEqual(['triggered', 'filled']);
    expect(order.dealMoney.toString()).toBe('10.3');
    expect(engine.deals(KEY)[0]!.role).toBe(1);
  });

  test('activation equal to the last price is rejected; condition already met triggers on arrival', () => {
    const { engine } = setup();
    const equal = rejection(() => engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: D('0.1'), price: D('101'), activationPrice: D('100') }));
    expect(equal.venueCode).toBe(30);
    expect(equal.fieldErrors).toEqual({ activationPrice: ['Activation price should not be equal to the last price'] });
    const met = engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: D('0.1'), price: D('99'), activationPrice: D('95') });
    expect(met.activated).toBe(true);
    expect(met.status).toBe('OPEN');
  });
});

describe('OCO', () => {
  const oco = (engine: SimEngine) => engine.placeOco(KEY, {
    market: 'BTC_USDT', side: 'sell', amount: D('0.5'), price: D('110'), activationPrice: D('95'), stopLimitPrice: D('94'), clientOrderId: 'oco-1',
  });

  test('take-profit fills first when the high is nearer the open: stop-loss leg cancelled', () => {
    const { engine } = setup();
    const group = oco(engine);
    // Margin in money on the collateral balance: 0.5 x max(110, 94) x 1.001
    expect(engine.collateralBalances(KEY).get('USDT')!.freeze.toString()).toBe('55.055');
    expect(engine.collateralBalances(KEY).get('BTC')!.freeze.toString()).toBe('0');
    engine.applyCandle('BTC_USDT', candle(T0, '100', '111', '88', '95'));
    expect(group.takeProfit.status).toBe('FILLED');
    expect(group.stopLoss.status).toBe('CANCELED');
    expect(group.stopLoss.activated).toBe(false);
    expect(engine.activeOcos(KEY)).toHaveLength(0);
    const btc = engine.collateralBalances(KEY).get('BTC')!;
    expect([btc.available.toString(), btc.freeze.toString()]).toEqual(['0.5', '0']);
    // 0.5 x 110 = 55, maker fee 0.055
    expect(engine.collateralBalances(KEY).get('USDT')!.available.toString()).toBe('10054.945');
  });

  test('stop-loss triggers first when the low is nearer the open: take-profit leg cancelled by its execution', () => {
    const { engine } = setup();
    const group = oco(engine);
    const events = engine.applyCandle('BTC_USDT', candle(T0, '100', '111', '94', '105'));
    expect(events.map((e) => `${e.type}:${e.order.type}`)).toEqual([
      'triggered:margin stop limit', 'filled:margin stop limit', 'canceled:margin limit',
    ]);
    expect(group.stopLoss.dealMoney.toString()).toBe('47.5'); // taker at the trigger price 95
    expect(engine.collateralBalances(KEY).get('BTC')!.freeze.toString()).toBe('0');
  });

  test('tie between the extremes: low first', () => {
    const { engine } = setup();
    const group = oco(engine);
    engine.applyCandle('BTC_USDT', candle(T0, '100', '110', '90', '100'));
    expect(group.stopLoss.status).toBe('FILLED');
    expect(group.takeProfit.status).toBe('CANCELED');
  });

  test('cancel by OCO id cancels both legs and releases the shared freeze', () => {
    const { engine } = setup();
    const group = oco(engine);
    engine.cancelOco(KEY, 'BTC_USDT', { orderId: group.id });
    expect([group.stopLoss.status, group.takeProfit.status]).toEqual(['CANCELED', 'CANCELED']);
    expect(engine.collateralBalances(KEY).get('BTC')!.available.toString()).toBe('1');
    expect(rejection(() => engine.cancelOco(KEY, 'BTC_USDT', { orderId: group.id })).venueCode).toBe(2);
  });

  test('wrong stop side and marketable take-profit are rejected', () => {
    const { engine } = setup();
    expect(rejection(() => engine.placeOco(KEY, { market: 'BTC_USDT', side: 'sell', amount: D('0.5'), price: D('110'), activationPrice: D('105'), stopLimitPrice: D('104') })).venueCode).toBe(151);
    expect(rejection(() => engine.placeOco(KEY, { market: 'BTC_USDT', side: 'sell', amount: D('0.5'), price: D('99'), activationPrice: D('95'), stopLimitPrice: D('94') })).venueCode).toBe(150);
  });
});

describe('funds, fees, cancel', () => {
  test('buy freezes total plus fee; cancel releases it', () => {
    const { engine } = setup();
    const order = engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: D('1'), price: D('120'), activationPrice: D('110') });
    expect(bal(engine, 'USDT')).toEqual({ available: '9879.88', freeze: '120.12' });
    const canceled = engine.cancelOrder(KEY, 'BTC_USDT', { orderId: order.id });
    expect(canceled.status).toBe('CANCELED');
    expect(bal(engine, 'USDT')).toEqual({ available: '10000', freeze: '0' });
    expect(engine.orderHistory(KEY)[0]!.id).toBe(order.id);
    expect(rejection(() => engine.cancelOrder(KEY, 'BTC_USDT', { orderId: order.id })).fieldErrors).toEqual({ orderId: ['Unexecuted order was not found.'] });
  });

  test('maker sell fill pays the maker fee and releases the freeze', () => {
    const { engine } = setup();
    engine.placeLimit(KEY, { market: 'BTC_USDT', side: 'sell', amount: D('1'), price: D('105') });
    expect(bal(engine, 'BTC')).toEqual({ available: '0', freeze: '1' });
    engine.applyCandle('BTC_USDT', candle(T0, '100', '106', '99', '104'));
    expect(bal(engine, 'BTC')).toEqual({ available: '0', freeze: '0' });
    expect(bal(engine, 'USDT')).toEqual({ available: '10104.895', freeze: '0' });
    expect(engine.deals(KEY)[0]).toMatchObject({ role: 1, time: T0 + 60 });
  });

  test('marketable limit fills at once as taker at the last price', () => {
    const { engine } = setup();
    engine.applyCandle('BTC_USDT', candle(T0 - 60, '100', '100', '100', '100')); // a closed minute to take a share of
    const order = engine.placeLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: D('1'), price: D('150') });
    expect(order.status).toBe('FILLED');
    expect(order.dealMoney.toString()).toBe('100');
    expect(bal(engine, 'USDT')).toEqual({ available: '9899.9', freeze: '0' });
    expect(bal(engine, 'BTC').available).toBe('2');
  });

  test('not enough balance: code 10, nothing frozen', () => {
    const { engine } = setup();
    const error = rejection(() => engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'sell', amount: D('2'), price: D('90'), activationPrice: D('95') }));
    expect([error.venueCode, error.httpStatus, error.message]).toEqual([10, 400, 'Inner validation failed']);
    expect(error.fieldErrors).toEqual({ amount: ['Not enough balance.'] });
    expect(bal(engine, 'BTC')).toEqual({ available: '1', freeze: '0' });
  });
});

describe('market rules', () => {
  const place = (engine: SimEngine, amount: string, price: string) =>
    rejection(() => engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: D(amount), price: D(price), activationPrice: D('110') }));

  test('precision, minimum amount and minimum total', () => {
    const { engine } = setup();
    expect(place(engine, '0.0000001', '120')).toMatchObject({ venueCode: 32, fieldErrors: { amount: ['Min amount step = 0.000001'] } });
    expect(place(engine, '0.00005', '120')).toMatchObject({ venueCode: 32, fieldErrors: { amount: ['Given amount is less than min amount 0.0001'] } });
    expect(place(engine, '0.01', '120.001')).toMatchObject({ venueCode: 33, fieldErrors: { price: ['Min price step = 0.01'] } });
    expect(place(engine, '0.01', '120')).toMatchObject({ venueCode: 30, httpStatus: 422, fieldErrors: { total: ['Total(amount * price) is less than 5.05'] } });
  });

  test('unknown market: code 31', () => {
    const { engine } = setup();
    expect(rejection(() => engine.placeLimit(KEY, { market: 'XRP_USDT', side: 'buy', amount: D('1'), price: D('1') })).venueCode).toBe(31);
  });

  test('duplicate client order id among open orders: code 36; reusable after cancel', () => {
    const { engine } = setup();
    const input = { market: 'BTC_USDT', side: 'buy' as const, amount: D('0.1'), price: D('120'), activationPrice: D('110'), clientOrderId: 'dup-1' };
    const first = engine.placeStopLimit(KEY, input);
    expect(rejection(() => engine.placeStopLimit(KEY, input)).venueCode).toBe(36);
    engine.cancelOrder(KEY, 'BTC_USDT', { clientOrderId: 'dup-1' });
    expect(first.status).toBe('CANCELED');
    expect(engine.placeStopLimit(KEY, input).status).toBe('OPEN');
  });
});

describe('kill-switch', () => {
  test('cancels the market open orders when the market clock passes the cancellation time', () => {
    const { engine, clock } = setup();
    const order = engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: D('0.1'), price: D('120'), activationPrice: D('110') });
    const timer = engine.setKillSwitch(KEY, 'BTC_USDT', 10, ['spot']);
    expect(timer).toEqual({ market: 'BTC_USDT', startTime: T0, cancellationTime: T0 + 10, types: ['spot'] });
    clock.setMs((T0 + 9) * 1000);
    expect(engine.processTimers()).toEqual([]);
    clock.setMs((T0 + 10) * 1000);
    expect(engine.processTimers().map((e) => e.type)).toEqual(['canceled']);
    expect(order.status).toBe('CANCELED');
    expect(engine.killSwitchStatus(KEY)).toEqual([]);
  });
});

describe('more transitions', () => {
  test('buy OCO mirrors the sell: stop-loss gte above, take-profit below; buy freezes the dearer leg once', () => {
    const { engine } = setup();
    const group = engine.placeOco(KEY, { market: 'BTC_USDT', side: 'buy', amount: D('0.5'), price: D('90'), activationPrice: D('105'), stopLimitPrice: D('106') });
    expect(group.stopLoss.activationCondition).toBe('gte');
    // 0.5 x max(90, 106) x 1.001
    expect(engine.collateralBalances(KEY).get('USDT')!.freeze.toString()).toBe('53.053');
    engine.applyCandle('BTC_USDT', candle(T0, '100', '101', '89', '95')); // low nearer: take-profit buy at 90 fills
    expect([group.takeProfit.status, group.stopLoss.status]).toEqual(['FILLED', 'CANCELED']);
    const usdt = engine.collateralBalances(KEY).get('USDT')!;
    expect([usdt.available.toString(), usdt.freeze.toString()]).toEqual(['9954.955', '0']);
  });

  test('kill-switch types: margin only cancels OCO legs, keeps spot orders', () => {
    const { engine, clock } = setup();
    const spot = engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: D('0.1'), price: D('120'), activationPrice: D('110') });
    const oco = engine.placeOco(KEY, { market: 'BTC_USDT', side: 'sell', amount: D('0.5'), price: D('110'), activationPrice: D('95'), stopLimitPrice: D('94') });
    engine.setKillSwitch(KEY, 'BTC_USDT', 5, ['margin']);
    clock.advanceMs(5000);
    engine.processTimers();
    expect(spot.status).toBe('OPEN');
    expect([oco.stopLoss.status, oco.takeProfit.status]).toEqual(['CANCELED', 'CANCELED']);
    expect(engine.setKillSwitch(KEY, 'BTC_USDT', null)).toBeNull();
  });

  test('gap open: a stop-limit gapped through its limit triggers at the open and rests at its limit', () => {
    const { engine } = setup();
    const stop = engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'sell', amount: D('0.1'), price: D('95'), activationPrice: D('97') });
    // previous 100 -> open 93: nothing traded between, so the first price beyond 97 is 93, below the limit 95
    engine.applyCandle('BTC_USDT', candle(T0, '93', '94', '92', '93'));
    expect([stop.activated, stop.status, stop.activatedAt]).toEqual([true, 'OPEN', T0 + 60]);
    expect(stop.dealStock.toString()).toBe('0');
  });

  test('history and deals stay bounded', () => {
    const clock = new ManualClock(T0 * 1000);
    const engine = new SimEngine({ clock, markets: [simMarketInfo('BTC_USDT')], historyLimit: 10 });
    engine.openAccount(KEY, { trading: { USDT: '100000' } });
    engine.setLastPrice('BTC_USDT', D('100'));
    for (let i = 0; i < 60; i++) {
      const o = engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: D('0.1'), price: D('120'), activationPrice: D('110') });
      engine.cancelOrder(KEY, 'BTC_USDT', { orderId: o.id });
    }
    expect(engine.orderHistory(KEY).length).toBeLessThanOrEqual(10 + 16);
    expect(engine.orderHistory(KEY)[0]!.id).toBe(60);
  });
});

describe('collateral modes: OCO exits of a spot position', () => {
  const T = T0;
  function spotLong(collateral?: 'separate' | 'unified') {
    const clock = new ManualClock(T * 1000);
    const engine = new SimEngine({ clock, markets: [simMarketInfo('BTC_USDT')], ...(collateral === undefined ? {} : { collateral }) });
    engine.openAccount(KEY, { trading: { USDT: '1000' }, collateral: { USDT: '1000' } });
    engine.setLastPrice('BTC_USDT', D('100'));
    engine.applyCandle('BTC_USDT', candle(T - 60, '100', '100', '100', '100')); // a closed minute to take a share of
    // Buy 1 BTC on spot with a stop-limit that triggers on arrival (last 100 >= 99): taker at 100.
    engine.placeStopLimit(KEY, { market: 'BTC_USDT', side: 'buy', amount: D('1'), price: D('101'), activationPrice: D('99') });
    expect(engine.tradingBalances(KEY).get('BTC')!.available.toString()).toBe('1');
    const exit = () => engine.placeOco(KEY, {
      market: 'BTC_USDT', side: 'sell', amount: D('1'), price: D('110'), activationPrice: D('95'), stopLimitPrice: D('94'), clientOrderId: 'exit',
    });
    return { engine, exit };
  }
  const place = (engine: SimEngine) => rejection(() => engine.placeOco(KEY, {
    market: 'BTC_USDT', side: 'sell', amount: D('0.1'), price: D('110'), activationPrice: D('95'), stopLimitPrice: D('94'),
  }));
  const wallet = (engine: SimEngine, kind: 'trading' | 'collateral', currency: string) => {
    const e = (kind === 'trading' ? engine.tradingBalances(KEY) : engine.collateralBalances(KEY)).get(currency);
    return e === undefined ? ['0', '0'] : [e.available.toString(), e.freeze.toString()];
  };

  test("separate (default, as live): the sell OCO is margined in USDT, fills as a short on the collateral account; spot BTC stays", () => {
    const { engine, exit } = spotLong();
    const group = exit();
    expect(wallet(engine, 'collateral', 'USDT')).toEqual(['889.89', '110.11']); // 1 x 110 x 1.001 held
    engine.applyCandle('BTC_USDT', candle(T, '100', '111', '99', '110'));
    expect([group.takeProfit.status, group.stopLoss.status]).toEqual(['FILLED', 'CANCELED']);
    expect(wallet(engine, 'collateral', 'BTC')).toEqual(['-1', '0']); // a short of 1 BTC
    expect(wallet(engine, 'collateral', 'USDT')).toEqual(['1109.89', '0']); // + 110 - maker fee 0.11
    expect(wallet(engine, 'trading', 'BTC')).toEqual(['1', '0']); // the spot long is untouched
  });

  test('separate: without enough USDT on the collateral balance the OCO is rejected for funds, per leg (152 / 153)', () => {
    const clock = new ManualClock(T * 1000);
    const engine = new SimEngine({ clock, markets: [simMarketInfo('BTC_USDT')] });
    engine.openAccount(KEY, { trading: { USDT: '1000', BTC: '1' }, collateral: { USDT: '100' } });
    engine.setLastPrice('BTC_USDT', D('100'));
    const place = (stopLimitPrice: string) => rejection(() => engine.placeOco(KEY, {
      market: 'BTC_USDT', side: 'sell', amount: D('1'), price: D('110'), activationPrice: D('95'), stopLimitPrice: D(stopLimitPrice),
    }));
    // the stop-loss leg (1 x 94 x 1.001) fits in 100 USDT, the take-profit leg (1 x 110 x 1.001) does not
    expect(place('94')).toMatchObject({ venueCode: 153, httpStatus: 400, message: 'Inner validation failed', fieldErrors: { price: ['Not enough balance for limit order.'] } });
    expect(place('94')).toBeInstanceOf(InsufficientFundsError);
    // a sell stop-loss limit may sit above the trigger: 1 x 120 x 1.001 does not fit either, and is checked first
    expect(place('120')).toMatchObject({ venueCode: 152, fieldErrors: { price: ['Not enough balance for stop limit order.'] } });
    expect(engine.collateralBalances(KEY).get('USDT')!.freeze.toString()).toBe('0');
  });

  test('the collateral balance is its own account: empty unless funded, never a copy of the trading balance', () => {
    const clock = new ManualClock(T * 1000);
    const engine = new SimEngine({ clock, markets: [simMarketInfo('BTC_USDT')] });
    engine.openAccount(KEY, { trading: { USDT: '1000', BTC: '1' } });
    engine.setLastPrice('BTC_USDT', D('100'));
    expect(wallet(engine, 'collateral', 'USDT')).toEqual(['0', '0']);
    expect(place(engine).venueCode).toBe(152);
  });

  test('unified: the sell OCO holds and sells the BTC bought on spot; collateral untouched', () => {
    const { engine, exit } = spotLong('unified');
    const group = exit();
    expect(wallet(engine, 'trading', 'BTC')).toEqual(['0', '1']);
    engine.applyCandle('BTC_USDT', candle(T, '100', '101', '94', '95')); // low nearer: the stop triggers at 95, fills as taker
    expect([group.stopLoss.status, group.takeProfit.status]).toEqual(['FILLED', 'CANCELED']);
    expect(wallet(engine, 'trading', 'BTC')).toEqual(['0', '0']);
    // 1000 - 100 - 0.1 (buy, taker) + 95 - 0.095 (sell, taker)
    expect(wallet(engine, 'trading', 'USDT')).toEqual(['994.805', '0']);
    expect(wallet(engine, 'collateral', 'USDT')).toEqual(['1000', '0']);
    expect(wallet(engine, 'collateral', 'BTC')).toEqual(['0', '0']);
  });

  test('unified: cancelling the OCO gives the BTC back to the trading balance', () => {
    const { engine, exit } = spotLong('unified');
    const group = exit();
    engine.cancelOco(KEY, 'BTC_USDT', { orderId: group.id });
    expect(wallet(engine, 'trading', 'BTC')).toEqual(['1', '0']);
  });
});
