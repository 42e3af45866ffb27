import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { RiskDeniedError } from '../../../src/domain/errors';
import type { Intent, OcoIntent, StopLimitIntent } from '../../../src/domain/intent';
import type { MarketInfo } from '../../../src/domain/market';
import { Portfolio } from '../../../src/portfolio/portfolio';
import { RiskEngine } from '../../../src/risk/risk-engine';
import {
  checkBalance, checkMarketMinimums, checkMarketNotional, checkOpenOrders, checkOrderNotional, checkPriceBand, type RiskContext,
} from '../../../src/risk/risk-checks';
import { limitsFor, type RiskLimits } from '../../../src/risk/risk-limits';
import { isExit } from '../../../src/trading-state/trading-state';
import type { OpenOrderView } from '../../../src/risk/open-order-view';

const D = (v: string | number) => new Decimal(v);
const buy: StopLimitIntent = { kind: 'stop_limit', market: 'BTC_USDT', side: 'buy', amount: D('0.01'), price: D('50100'), activationPrice: D('50000'), purpose: 'entry' };
const sell: StopLimitIntent = { kind: 'stop_limit', market: 'BTC_USDT', side: 'sell', amount: D('0.01'), price: D('49900'), activationPrice: D('50000') };
const oco: OcoIntent = { kind: 'oco', market: 'BTC_USDT', side: 'sell', amount: D('0.01'), price: D('51000'), activationPrice: D('49500'), stopLimitPrice: D('49400'), purpose: 'exit' };
const cancel: Intent = { kind: 'cancel', market: 'BTC_USDT', clientOrderId: 'tb-x-1' };
const open = (over: Partial<OpenOrderView> = {}): OpenOrderView => ({
  clientOrderId: 'o1', strategy: 's1', market: 'BTC_USDT', side: 'buy', kind: 'stop_limit', amount: D('0.01'), price: D('50000'), ...over,
});
const ctx = (over: Partial<RiskContext> = {}): RiskContext => ({
  strategy: 's1', lastPrice: D('50000'), openOrders: [],
  balances: { USDT: { available: D('1000'), freeze: D(0) }, BTC: { available: D('0.01'), freeze: D(0) } }, ...over,
});

describe('named checks: allow and deny', () => {
  test('max order notional', () => {
    expect(checkOrderNotional(buy, ctx(), { maxOrderNotional: D(600) })).toBeUndefined();
    expect(checkOrderNotional(buy, ctx(), { maxOrderNotional: D(500) })).toMatchObject({ allowed: false, rule: 'max_order_notional' });
    expect(checkOrderNotional(oco, ctx(), { maxOrderNotional: D(505) })).toMatchObject({ rule: 'max_order_notional' }); // worst leg 51000
    expect(checkOrderNotional(buy, ctx(), {})).toBeUndefined();
  });
  test('max notional per market counts open orders (all strategies) plus the new one', () => {
    const c = ctx({ openOrders: [open({ strategy: 'other' }), open({ market: 'ETH_USDT', amount: D(100) })] });
    expect(checkMarketNotional(buy, c, { maxMarketNotional: D(1001) })).toBeUndefined();
    expect(checkMarketNotional(buy, c, { maxMarketNotional: D(1000) })).toMatchObject({ rule: 'max_market_notional' });
  });
  test('max open orders per strategy and market', () => {
    const c = ctx({ openOrders: [open(), open({ strategy: 'other' }), open({ market: 'ETH_USDT' })] });
    expect(checkOpenOrders(buy, c, { maxOpenOrdersPerStrategy: 2 })).toBeUndefined();
    expect(checkOpenOrders(buy, c, { maxOpenOrdersPerStrategy: 1 })).toMatchObject({ rule: 'max_open_orders' });
  });
  test('balance: buys need money plus the fee margin, sells need stock', () => {
    expect(checkBalance(buy, ctx(), { feeMargin: D('0.002') })).toBeUndefined(); // 501 * 1.002 = 502.002 <= 1000
    const poor = ctx({ balances: { USDT: { available: D('502'), freeze: D(0) } } });
    expect(checkBalance(buy, poor, {})).toBeUndefined();
    expect(checkBalance(buy, poor, { feeMargin: D('0.002') })).toMatchObject({ rule: 'balance' });
    expect(checkBalance(sell, ctx(), { feeMargin: D('0.002') })).toBeUndefined(); // a whole holding can be sold
    expect(checkBalance({ ...sell, amount: D('0.011') }, ctx(), {})).toMatchObject({ rule: 'balance' });
    expect(checkBalance(buy, ctx({ balances: {} }), {})).toMatchObject({ rule: 'balance' });
    expect(checkBalance(buy, ctx({ balances: {} }), { checkBalance: false })).toBeUndefined();
  });
  test('price band applies to price, activation and stop-limit prices; no last price denies', () => {
    expect(checkPriceBand(buy, ctx(), { priceBand: D('0.01') })).toBeUndefined();
    expect(checkPriceBand(buy, ctx({ lastPrice: D(45000) }), { priceBand: D('0.05') })).toMatchObject({ rule: 'price_band' });
    expect(checkPriceBand({ ...buy, price: D(50000), activationPrice: D(60000) }, ctx(), { priceBand: D('0.05') })?.message).toMatch(/activationPrice/);
    expect(checkPriceBand({ ...oco, stopLimitPrice: D(1000) }, ctx(), { priceBand: D('0.05') })?.message).toMatch(/stopLimitPrice/);
    expect(checkPriceBand(buy, ctx({ lastPrice: undefined }), { priceBand: D('0.05') })).toMatchObject({ rule: 'price_band' });
  });
  test('market minimums from the market info', () => {
    const info = { name: 'BTC_USDT', stock: 'BTC', money: 'USDT', stockPrec: 6, moneyPrec: 2, feePrec: 4, minAmount: D('0.001'), minTotal: D(5), maxTotal: D(0), makerFee: D('0.001'), takerFee: D('0.001'), tradesEnabled: true, isCollateral: false, type: 'spot' } satisfies MarketInfo;
    expect(checkMarketMinimums(buy, ctx({ marketInfo: info }), {})).toBeUndefined();
    expect(checkMarketMinimums({ ...buy, amount: D('0.0001') }, ctx({ marketInfo: info }), {})).toMatchObject({ rule: 'market_minimums' });
    expect(checkMarketMinimums(buy, ctx({ marketInfo: { ...info, tradesEnabled: false } }), {})).toMatchObject({ rule: 'market_minimums' });
  });
  test('per-market overrides replace defaults field by field', () => {
    const limits: RiskLimits = { maxOrderNotional: D(100), priceBand: D('0.05'), markets: { BTC_USDT: { maxOrderNotional: D(1000) } } };
    expect(limitsFor(limits, 'BTC_USDT')).toMatchObject({ maxOrderNotional: D(1000), priceBand: D('0.05') });
    expect(limitsFor(limits, 'ETH_USDT').maxOrderNotional).toEqual(D(100));
  });
});

describe('RiskEngine', () => {
  const limits: RiskLimits = { maxOrderNotional: D(1000), priceBand: D('0.05'), dailyLossLimit: D(100), feeMargin: D('0.002') };
  const DAY = 86_400_000;

  test('allows a good order and returns the first failing rule otherwise', () => {
    const engine = new RiskEngine({ limits });
    expect(engine.check(buy, ctx())).toEqual({ allowed: true });
    expect(engine.check({ ...buy, amount: D(1) }, ctx({ balances: {} }))).toMatchObject({ allowed: false, rule: 'max_order_notional' });
    expect(() => engine.assertAllowed({ ...buy, amount: D(1) }, ctx())).toThrow(RiskDeniedError);
  });

  test('halted: everything but cancels is denied', () => {
    const changes: string[] = [];
    const engine = new RiskEngine({ limits, onStateChange: (n, p, r) => changes.push(`${p}->${n}:${r}`) });
    engine.setTradingState('halted', 'operator');
    expect(engine.tradingState).toBe('halted');
    expect(engine.check(buy, ctx())).toMatchObject({ rule: 'trading_state' });
    expect(engine.check(oco, ctx())).toMatchObject({ rule: 'trading_state' });
    expect(engine.check(cancel, ctx())).toEqual({ allowed: true });
    expect(changes).toEqual(['active->halted:operator']);
  });

  test('reducing: exits and cancels pass, entries are denied', () => {
    const engine = new RiskEngine({ limits, initialState: 'reducing' });
    expect(engine.check(buy, ctx())).toMatchObject({ rule: 'trading_state' });
    expect(engine.check(oco, ctx())).toEqual({ allowed: true });
    expect(engine.check(sell, ctx())).toEqual({ allowed: true }); // no purpose: a spot sell is an exit
    expect(engine.check({ ...sell, purpose: 'entry' }, ctx())).toMatchObject({ rule: 'trading_state' });
    expect(engine.check(cancel, ctx())).toEqual({ allowed: true });
  });

  test('isExit: explicit purpose wins, else sells are exits', () => {
    expect([isExit(buy), isExit(sell), isExit(oco), isExit({ ...buy, purpose: 'exit' }), isExit(cancel)]).toEqual([false, true, true, true, true]);
  });

  test('daily loss limit halts entries until the next UTC day, exits still pass', () => {
    const clock = new ManualClock(10 * DAY + 1000);
    const portfolio = new Portfolio(clock);
    const engine = new RiskEngine({ limits, pnl: portfolio });
    const fill = (side: 'buy' | 'sell', price: number, timeMs?: number) =>
      portfolio.applyFill({ strategy: 's', market: 'BTC_USDT', side, amount: D(1), price: D(price), fee: D(0), timeMs });
    fill('buy', 100);
    fill('sell', 40); // -60
    expect(engine.check(buy, ctx())).toEqual({ allowed: true });
    fill('buy', 100);
    fill('sell', 50); // -50
    fill('buy', 2000, 9 * DAY);
    fill('sell', 1000, 9 * DAY); // yesterday: ignored
    expect(portfolio.realizedToday().toString()).toBe('-110');
    expect(engine.check(buy, ctx())).toMatchObject({ allowed: false, rule: 'daily_loss_limit' });
    expect(engine.check(oco, ctx())).toEqual({ allowed: true });
    clock.setMs(11 * DAY);
    expect(portfolio.realizedToday().toString()).toBe('0');
    expect(engine.check(buy, ctx())).toEqual({ allowed: true });
  });

  test('profits offset losses within the day', () => {
    const portfolio = new Portfolio(new ManualClock(DAY));
    const engine = new RiskEngine({ limits, pnl: portfolio });
    for (const [side, price] of [['buy', 200], ['sell', 50], ['buy', 100], ['sell', 180]] as const) {
      portfolio.applyFill({ strategy: 's', market: 'BTC_USDT', side, amount: D(1), price: D(price), fee: D(0) });
    }
    expect(engine.dailyLossLimitReached()).toBe(false);
  });
});

describe('checkStanding: what a trailing stop\'s next leg is asked before its move cancels the resting one', () => {
  test('a halt refuses it; our own open orders and balances do not (the resting leg still counts there)', () => {
    const engine = new RiskEngine({ limits: { maxOpenOrdersPerStrategy: 1, maxMarketNotional: D(10), priceBand: D('0.05') } });
    const full = ctx({ openOrders: [open({ side: 'sell' })], balances: {} });
    expect(engine.check(sell, full).allowed).toBe(false);
    expect(engine.checkStanding(sell, full)).toEqual({ allowed: true });
    expect(engine.checkStanding({ ...sell, activationPrice: D('60000') }, full)).toMatchObject({ allowed: false, rule: 'price_band' });
    engine.setTradingState('halted', 'operator');
    expect(engine.checkStanding(sell, full)).toMatchObject({ allowed: false, rule: 'trading_state' });
  });
});
