import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import type { StopLimitIntent } from '../../../src/domain/intent';
import { Portfolio } from '../../../src/portfolio/portfolio';
import { Guardrails, type GuardCheckContext } from '../../../src/risk/guardrails/guardrails';
import { NO_GUARDRAILS, type GuardrailSettings } from '../../../src/risk/guardrails/guard-rules';
import type { GuardLatch } from '../../../src/risk/guardrails/guard-latch';
import { parseGuardSnapshot } from '../../../src/risk/guardrails/guard-snapshot';
import { guardrailsSection } from '../../../src/config/guardrails-schema';
import { guardrailsFromConfig } from '../../../src/config/risk-limits';

const D = (v: string | number): Decimal => new Decimal(v);
const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const entry = (amount = '0.01', price = '100'): StopLimitIntent => ({ kind: 'stop_limit', market: 'BTC_USDT', side: 'buy', amount: D(amount), price: D(price), activationPrice: D(price), purpose: 'entry' });
const exit: StopLimitIntent = { kind: 'stop_limit', market: 'BTC_USDT', side: 'sell', amount: D('1'), price: D('90'), activationPrice: D('90'), purpose: 'exit' };

function settings(over: Partial<GuardrailSettings>): GuardrailSettings {
  return { ...NO_GUARDRAILS, ...over };
}

function setup(s: GuardrailSettings): { portfolio: Portfolio; guards: Guardrails; trips: GuardLatch[]; lifts: string[]; check: (i: StopLimitIntent, atMs: number, strategy?: string, usdt?: string) => string | undefined } {
  const portfolio = new Portfolio(new ManualClock(T0));
  const trips: GuardLatch[] = [];
  const lifts: string[] = [];
  const guards = new Guardrails(s, portfolio, { tripped: (l) => trips.push(l), released: (l, by) => lifts.push(`${l.guard}:${l.scope}:${by}`) });
  const check = (i: StopLimitIntent, atMs: number, strategy = 'a', usdt = '1000'): string | undefined => {
    const c: GuardCheckContext = { strategy, decisionMs: atMs, balances: { USDT: { available: D(usdt), freeze: D(0) } }, strategyOpenOrders: () => [], money: 'USDT' };
    return guards.check(i, c)?.rule;
  };
  return { portfolio, guards, trips, lifts, check };
}

const fill = (p: Portfolio, strategy: string, side: 'buy' | 'sell', amount: string, price: string, replayed = false): void => {
  p.applyFill({ strategy, market: 'BTC_USDT', side, amount: D(amount), price: D(price), fee: D(0), replayed });
};

describe('drawdown stops', () => {
  test('a strategy stop trips at the mark its equity falls max below the window peak, denies its entries only, and lifts a window later', () => {
    const g = setup(settings({ strategyDefaults: { drawdown: [{ max: D(50), windowMs: 24 * H, release: 'window' }], cooldown: [] } }));
    fill(g.portfolio, 'a', 'buy', '1', '100');
    g.guards.mark('BTC_USDT', D(120), T0 + H); // peak +20
    g.guards.mark('BTC_USDT', D(80), T0 + 2 * H); // -20: 40 below the peak
    expect(g.trips).toEqual([]);
    g.guards.mark('BTC_USDT', D(70), T0 + 3 * H); // -30: 50 below
    expect(g.trips.map((l) => [l.guard, l.scope, l.action, l.untilMs])).toEqual([['strategy_drawdown', 'a', 'reduce', T0 + 27 * H]]);
    expect(g.trips[0]?.reason).toBe('strategy a is 50 below its peak of the last 24h (drawdown limit 50)');
    expect(g.check(entry(), T0 + 3 * H)).toBe('strategy_drawdown');
    expect(g.check(exit, T0 + 3 * H)).toBeUndefined();
    expect(g.check(entry(), T0 + 3 * H, 'b')).toBeUndefined();
    expect(g.check(entry(), T0 + 27 * H)).toBeUndefined();
    expect(g.lifts).toEqual(['strategy_drawdown:a:window']);
  });

  test('the account stop halts every strategy, exits included, until an operator lifts it', () => {
    const g = setup(settings({ account: { drawdown: [{ max: D(30), release: 'operator', action: 'halt' }] } }));
    fill(g.portfolio, 'a', 'buy', '1', '100');
    fill(g.portfolio, 'b', 'buy', '1', '100');
    g.guards.mark('BTC_USDT', D(100), T0 + H);
    g.guards.mark('BTC_USDT', D(85), T0 + 2 * H); // -15 each: 30 below
    expect(g.trips.map((l) => [l.guard, l.scope, l.action, l.untilMs])).toEqual([['account_drawdown', 'account', 'halt', undefined]]);
    expect(g.check(exit, T0 + 100 * H, 'b')).toBe('account_drawdown');
    expect(g.guards.release('a')).toEqual([]);
    expect(g.guards.release('account').length).toBe(1);
    expect(g.check(entry(), T0 + 100 * H)).toBeUndefined();
    expect(g.lifts).toEqual(['account_drawdown:account:operator']);
    // The operator accepted the loss so far: the peak starts again from here, the stop does not trip at the next candle.
    g.guards.mark('BTC_USDT', D(84), T0 + 3 * H);
    expect(g.trips).toHaveLength(1);
    g.guards.mark('BTC_USDT', D(69), T0 + 4 * H); // 30 below the new peak (-30)
    expect(g.trips).toHaveLength(2);
  });

  test('fills replayed from the journal at a restart move equity, not the losses', () => {
    const g = setup(settings({ strategyDefaults: { drawdown: [], cooldown: [{ losses: 1, windowMs: H, pauseMs: H, scope: 'strategy' }] } }));
    fill(g.portfolio, 'a', 'buy', '1', '100', true);
    fill(g.portfolio, 'a', 'sell', '1', '90', true);
    g.guards.mark('BTC_USDT', D(90), T0 + H);
    expect(g.trips).toEqual([]);
  });
});

describe('cooldowns', () => {
  test('N losing round trips within the window pause entries for the pause, counted at the candle that settled them', () => {
    const g = setup(settings({ strategyDefaults: { drawdown: [], cooldown: [{ losses: 2, windowMs: 6 * H, pauseMs: 2 * H, scope: 'strategy' }] } }));
    const loss = (at: number): void => {
      fill(g.portfolio, 'a', 'buy', '1', '100');
      fill(g.portfolio, 'a', 'sell', '1', '95');
      g.guards.mark('BTC_USDT', D(95), at);
    };
    const win = (at: number): void => {
      fill(g.portfolio, 'a', 'buy', '1', '100');
      fill(g.portfolio, 'a', 'sell', '1', '105');
      g.guards.mark('BTC_USDT', D(105), at);
    };
    loss(T0 + H);
    win(T0 + 2 * H);
    expect(g.trips).toEqual([]);
    loss(T0 + 8 * H); // the first loss is out of the 6 h window
    expect(g.trips).toEqual([]);
    loss(T0 + 9 * H);
    expect(g.trips.map((l) => [l.guard, l.scope, l.sinceMs, l.untilMs])).toEqual([['cooldown', 'a', T0 + 9 * H, T0 + 11 * H]]);
    expect(g.check(entry(), T0 + 10 * H)).toBe('cooldown');
    expect(g.check(exit, T0 + 10 * H)).toBeUndefined();
    expect(g.check(entry(), T0 + 11 * H)).toBeUndefined();
  });

  test('scope market pauses the strategy on the losing market only', () => {
    const g = setup(settings({ strategyDefaults: { drawdown: [], cooldown: [{ losses: 1, windowMs: H, pauseMs: H, scope: 'market' }] } }));
    fill(g.portfolio, 'a', 'buy', '1', '100');
    fill(g.portfolio, 'a', 'sell', '1', '95');
    g.guards.mark('BTC_USDT', D(95), T0 + H);
    expect(g.check(entry(), T0 + H)).toBe('cooldown');
    expect(g.check({ ...entry(), market: 'ETH_USDT' }, T0 + H)).toBeUndefined();
  });
});

describe('budgets', () => {
  const shares = settings({ strategies: { a: { budget: { share: D('0.5') } }, b: { budget: { share: D('0.5') } } } });

  test('a strategy that lost its budget cannot spend the other strategy\'s share', () => {
    const g = setup(shares);
    g.guards.mark('BTC_USDT', D(100), T0 + H);
    expect(g.check(entry('5', '100'), T0 + H, 'a')).toBeUndefined(); // 500 of 500
    expect(g.check(entry('5.01', '100'), T0 + H, 'a')).toBe('strategy_budget');
    // a buys 4 at 100 and sells them at 10: it lost 360 of its 500; the account holds 640 USDT.
    fill(g.portfolio, 'a', 'buy', '4', '100');
    fill(g.portfolio, 'a', 'sell', '4', '10');
    g.guards.mark('BTC_USDT', D(10), T0 + 2 * H);
    expect(g.check(entry('1.4', '100'), T0 + 2 * H, 'a', '640')).toBeUndefined(); // 140 left
    expect(g.check(entry('1.5', '100'), T0 + 2 * H, 'a', '640')).toBe('strategy_budget');
    expect(g.check(entry('5', '100'), T0 + 2 * H, 'b', '640')).toBeUndefined(); // b's 500 untouched
    const view = g.guards.budget('a', 'USDT', { USDT: { available: D(640), freeze: D(0) } }, []);
    expect([view?.allocated.toString(), view?.realized.toString(), view?.available.toString()]).toEqual(['500', '-360', '140']);
  });

  test('an amount budget counts positions at cost and open entry orders', () => {
    const g = setup(settings({ strategies: { a: { budget: { amount: D(300) } } } }));
    fill(g.portfolio, 'a', 'buy', '2', '100');
    const view = g.guards.budget('a', 'USDT', {}, [{ clientOrderId: 'x', strategy: 'a', market: 'BTC_USDT', side: 'buy', kind: 'stop_limit', amount: D('0.5'), price: D(100), purpose: 'entry' }]);
    expect(view?.available.toString()).toBe('50');
  });
});

test('a snapshot restores peaks, losses and the stops in force', () => {
  const s = settings({ strategyDefaults: { drawdown: [{ max: D(50), windowMs: 24 * H, release: 'window' }], cooldown: [{ losses: 3, windowMs: 6 * H, pauseMs: H, scope: 'strategy' }] } });
  const g = setup(s);
  fill(g.portfolio, 'a', 'buy', '1', '100');
  g.guards.mark('BTC_USDT', D(150), T0 + H);
  g.guards.mark('BTC_USDT', D(99), T0 + 2 * H);
  const json = JSON.stringify(g.guards.snapshot());
  const again = setup(s);
  fill(again.portfolio, 'a', 'buy', '1', '100', true);
  again.guards.restore(parseGuardSnapshot(json));
  expect(again.guards.latches()).toEqual(g.guards.latches());
  expect(again.check(entry(), T0 + 3 * H)).toBe('strategy_drawdown');
  expect(JSON.parse(JSON.stringify(again.guards.snapshot()))).toEqual(JSON.parse(json));
  expect(() => parseGuardSnapshot('{"version":2}')).toThrow(/not one this version reads/);
  expect(() => parseGuardSnapshot('nope')).toThrow(/not JSON/);
});

describe('config', () => {
  test('durations, defaults and the conversion', () => {
    const g = guardrailsFromConfig({ guardrails: guardrailsSection.parse({ account: { drawdown: [{ max: '75', window: '24h' }, { max: 200 }] }, strategyDefaults: { cooldown: [{ losses: 3, window: '6h', pause: '90m' }] }, strategies: { x: { budget: { share: '0.25' } } } }) });
    expect(g.account.drawdown.map((r) => [r.max.toString(), r.windowMs, r.release, r.action])).toEqual([['75', 24 * H, 'window', 'halt'], ['200', undefined, 'operator', 'halt']]);
    expect(g.strategyDefaults.cooldown).toEqual([{ losses: 3, windowMs: 6 * H, pauseMs: 90 * 60_000, scope: 'strategy' }]);
    expect(g.strategies['x']?.budget?.share?.toString()).toBe('0.25');
  });

  test.each([
    [{ account: { drawdown: [{ max: '1', release: 'window' }] } }, 'needs a window'],
    [{ strategies: { a: { budget: { share: '0.6' } }, b: { budget: { share: '0.5' } } } }, 'add up to 1.1'],
    [{ strategies: { a: { budget: { share: '0.5', amount: '10' } } } }, 'exactly one of share'],
    [{ strategyDefaults: { cooldown: [{ losses: 2, window: '6 hours', pause: '1h' }] } }, 'a duration such as'],
    [{ account: { drawdown: [{ max: '-1' }] } }, 'positive plain decimal'],
    [{ account: { drawdown: [{ max: 'a lot' }] } }, 'positive plain decimal'],
    [{ strategies: { a: { budget: { share: 'half' } }, b: { budget: { share: '0.5' } } } }, 'a share between 0 and 1'],
    [{ account: { stopAll: true } }, 'Unrecognized key'],
  ])('%j is refused: %s', (raw, message) => {
    const r = guardrailsSection.safeParse(raw);
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain(message);
  });
});
