import { STRATEGY_DEFAULTS } from '../../../src/config/defaults';
import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { StrategyFailedError } from '../../../src/domain/errors';
import { prepareStrategy } from '../../../src/strategy/prepare-strategy';
import { StrategyHost, type StrategyHostEvents } from '../../../src/strategy/strategy-host';
import { defineStrategy, z, type StrategyContext } from '../../../src/strategy/strategy';
import { readCandles } from './candle-fixture';

const candles = readCandles('btc_usdt-1m-binance-2021-09.csv', 40);

function strategy(onCandle: (ctx: StrategyContext<{ k: number }, Record<string, unknown>>) => unknown, extra: { warmup?: number; window?: number; name?: string } = {}) {
  return prepareStrategy(defineStrategy({
    name: extra.name ?? 's1', markets: ['BTC_USDT'], interval: '1m', warmup: extra.warmup ?? 0,
    ...(extra.window === undefined ? {} : { window: extra.window }),
    params: z.object({ k: z.number().default(1) }),
    onCandle: onCandle as never,
  }));
}

function recorder() {
  const log: string[] = [];
  const events: StrategyHostEvents = {
    onIntents: (e) => log.push(`intents:${e.strategy}:${e.intents.length}`),
    onError: (e) => log.push(`error:${e.strategy}:${e.error.context['reason'] as string}:${e.consecutiveFailures}`),
    onOverrun: (e) => log.push(`overrun:${e.strategy}`),
    onPaused: (e) => log.push(`paused:${e.strategy}`),
    onResumed: (e) => log.push(`resumed:${e.strategy}`),
    onSkipped: (e) => log.push(`skipped:${e.candleTime}`),
  };
  return { log, events };
}

const buy = (price: Decimal, extra: Record<string, unknown> = {}) => ({
  kind: 'stop_limit', market: 'BTC_USDT', side: 'buy', amount: new Decimal('0.001'), price, activationPrice: price, ...extra,
});

describe('StrategyHost', () => {
  test('each candle reaches the strategy exactly once, in order; repeats and older candles are skipped', async () => {
    const seen: number[] = [];
    const { log, events } = recorder();
    const host = new StrategyHost({ strategies: [strategy((ctx) => { seen.push(ctx.candle.time); return []; })], clock: new ManualClock(), events });
    for (const c of candles.slice(0, 10)) await host.handleCandle('BTC_USDT', '1m', c);
    await host.handleCandle('BTC_USDT', '1m', candles[9]!);
    await host.handleCandle('BTC_USDT', '1m', candles[3]!);
    await host.handleCandle('ETH_USDT', '1m', candles[10]!);
    await host.handleCandle('BTC_USDT', '5m', candles[10]!);
    expect(seen).toEqual(candles.slice(0, 10).map((c) => c.time));
    expect(log).toEqual([`skipped:${candles[9]!.time}`, `skipped:${candles[3]!.time}`]);
  });

  test('async strategies are serialised per (strategy, market) even when the caller does not await', async () => {
    const seen: number[] = [];
    const host = new StrategyHost({
      strategies: [strategy(async (ctx) => { const t = ctx.candle.time; await new Promise((r) => setImmediate(r)); seen.push(t); return []; })],
      clock: new ManualClock(), timeBudgetMs: Number.POSITIVE_INFINITY,
    });
    const pending = candles.slice(0, 5).map((c) => host.handleCandle('BTC_USDT', '1m', c));
    await Promise.all(pending);
    expect(seen).toEqual(candles.slice(0, 5).map((c) => c.time));
  });

  test('no onCandle before warmup candles; the window is bounded and oldest first', () => {
    const calls: { len: number; first: number; last: number; closes: readonly number[] }[] = [];
    const host = new StrategyHost({
      strategies: [strategy((ctx) => {
        calls.push({ len: ctx.candles.length, first: ctx.candles.at(0).time, last: ctx.candles.at(-1).time, closes: ctx.candles.closes() });
        return [];
      }, { warmup: 5, window: 8 })],
      clock: new ManualClock(),
    });
    for (const c of candles.slice(0, 12)) host.handleCandle('BTC_USDT', '1m', c);
    expect(calls).toHaveLength(8);
    expect(calls[0]).toMatchObject({ len: 5, first: candles[0]!.time, last: candles[4]!.time });
    const lastCall = calls[7]!;
    expect(lastCall).toMatchObject({ len: 8, first: candles[4]!.time, last: candles[11]!.time });
    expect(lastCall.closes).toEqual(candles.slice(4, 12).map((c) => Number(c.close.toString())));
  });

  test('a throwing strategy is isolated, counted, paused after N consecutive failures and resumable', () => {
    const { log, events } = recorder();
    let good = 0;
    const bad = strategy(() => { throw new Error('kaput'); }, { name: 'bad' });
    const ok = strategy((ctx) => { good++; return ctx.state['n'] === undefined ? [] : []; }, { name: 'ok' });
    const host = new StrategyHost({ strategies: [bad, ok], clock: new ManualClock(), events, maxConsecutiveFailures: 3 });
    for (const c of candles.slice(0, 5)) host.handleCandle('BTC_USDT', '1m', c);
    expect(good).toBe(5);
    expect(log).toEqual(['error:bad:threw:1', 'error:bad:threw:2', 'error:bad:threw:3', 'paused:bad']);
    expect(host.isPaused('bad')).toBe(true);
    expect(host.stats('bad')).toMatchObject({ calls: 3, errors: 3, consecutiveFailures: 3, paused: true });
    host.resume('bad');
    expect(host.stats('bad')).toMatchObject({ consecutiveFailures: 0, paused: false });
    host.handleCandle('BTC_USDT', '1m', candles[5]!);
    expect(log.slice(4)).toEqual(['resumed:bad', 'error:bad:threw:1']);
  });

  test('an error event carries a StrategyFailedError with the cause; a success resets the count', () => {
    const errors: StrategyFailedError[] = [];
    let n = 0;
    const flaky = strategy(() => { n++; if (n % 2 === 1) throw new Error(`odd ${n}`); return []; });
    const host = new StrategyHost({ strategies: [flaky], clock: new ManualClock(), events: { onError: (e) => errors.push(e.error) }, maxConsecutiveFailures: 2 });
    for (const c of candles.slice(0, 6)) host.handleCandle('BTC_USDT', '1m', c);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toBeInstanceOf(StrategyFailedError);
    expect((errors[0]!.cause as Error).message).toBe('odd 1');
    expect(host.isPaused('s1')).toBe(false);
  });

  test('a sync overrun (measured with the injected stopwatch) is counted and its intents dropped', () => {
    const { log, events } = recorder();
    let now = 0;
    const slow = strategy((ctx) => { now += 300; return [buy(ctx.candle.close)]; });
    const host = new StrategyHost({ strategies: [slow], clock: new ManualClock(), events, timeBudgetMs: 250, stopwatch: () => now });
    expect(host.handleCandle('BTC_USDT', '1m', candles[0]!)).toEqual([]);
    expect(log).toEqual(['overrun:s1', 'error:s1:overrun:1']);
    expect(host.stats('s1').overruns).toBe(1);
  });

  test("overrunPolicy 'count' (backtests): a slow call is counted, not a failure, and its intents are kept; async calls too, with no timer", async () => {
    const { log, events } = recorder();
    let now = 0;
    const slow = strategy((ctx) => { now += 300; return ctx.candle.time === candles[1]!.time ? Promise.resolve([buy(ctx.candle.close)]) : [buy(ctx.candle.close)]; });
    const host = new StrategyHost({
      strategies: [slow], clock: new ManualClock(), events, timeBudgetMs: 250, overrunPolicy: 'count', stopwatch: () => now,
      timers: { setTimeout: () => { throw new Error('no timer in count mode'); }, clearTimeout: () => undefined },
    });
    expect(host.handleCandle('BTC_USDT', '1m', candles[0]!)).toHaveLength(1);
    expect(await host.handleCandle('BTC_USDT', '1m', candles[1]!)).toHaveLength(1);
    expect(log).toEqual(['overrun:s1', 'intents:s1:1', 'overrun:s1', 'intents:s1:1']);
    expect(host.stats('s1')).toMatchObject({ overruns: 2, errors: 0, consecutiveFailures: 0, paused: false });
  });

  test('by default a strategy is paused after the daemon default of consecutive failures (STRATEGY_DEFAULTS)', () => {
    const { log, events } = recorder();
    const host = new StrategyHost({ strategies: [strategy(() => { throw new Error('x'); })], clock: new ManualClock(), events });
    for (const c of candles.slice(0, STRATEGY_DEFAULTS.maxConsecutiveFailures)) host.handleCandle('BTC_USDT', '1m', c);
    expect(log.at(-1)).toBe('paused:s1');
    expect(log.filter((l) => l.startsWith('error'))).toHaveLength(STRATEGY_DEFAULTS.maxConsecutiveFailures);
  });

  test('onDuration reports each call\'s stopwatch time (sync, thrown, async, even with no budget); nothing when unlistened', async () => {
    const durations: string[] = [];
    const onDuration = (e: { strategy: string; market: string; elapsedMs: number }) => durations.push(`${e.strategy}:${e.market}:${e.elapsedMs}`);
    let now = 0;
    let reads = 0;
    const stopwatch = () => { reads++; return now; };
    let n = 0;
    const mixed = strategy((ctx) => {
      n++;
      now += 10 * n;
      if (n === 2) throw new Error('boom');
      if (n === 3) return Promise.resolve([buy(ctx.candle.close)]);
      return [];
    });
    const host = new StrategyHost({ strategies: [mixed], clock: new ManualClock(), events: { onDuration }, timeBudgetMs: Infinity, stopwatch });
    for (const c of candles.slice(0, 3)) await host.handleCandle('BTC_USDT', '1m', c);
    expect(durations).toEqual(['s1:BTC_USDT:10', 's1:BTC_USDT:20', 's1:BTC_USDT:30']);

    // An overrun is reported with its duration too (the histogram must see the slow calls).
    const slow = strategy(() => { now += 300; return []; }, { name: 's2' });
    const budgeted = new StrategyHost({ strategies: [slow], clock: new ManualClock(), events: { onDuration }, timeBudgetMs: 250, stopwatch });
    budgeted.handleCandle('BTC_USDT', '1m', candles[0]!);
    expect(durations.at(-1)).toBe('s2:BTC_USDT:300');

    // No listener and no budget (backtests): the stopwatch is never read.
    reads = 0;
    const quiet = new StrategyHost({ strategies: [strategy(() => [], { name: 's3' })], clock: new ManualClock(), timeBudgetMs: Infinity, stopwatch });
    quiet.handleCandle('BTC_USDT', '1m', candles[0]!);
    expect(reads).toBe(0);
  });

  test('an async strategy that never settles overruns through the injected timer', async () => {
    const { log, events } = recorder();
    const fire: (() => void)[] = [];
    const hang = strategy(() => new Promise(() => undefined));
    const host = new StrategyHost({
      strategies: [hang], clock: new ManualClock(), events, timeBudgetMs: 250,
      timers: { setTimeout: (fn) => { fire.push(fn); return fire.length; }, clearTimeout: () => undefined },
    });
    const result = host.handleCandle('BTC_USDT', '1m', candles[0]!);
    expect(fire).toHaveLength(1);
    fire[0]!();
    expect(await result).toEqual([]);
    expect(log).toEqual(['overrun:s1', 'error:s1:overrun:1']);
  });

  test('valid intents are stamped with strategy, interval and candle time; Decimals normalised', () => {
    const { log, events } = recorder();
    const host = new StrategyHost({
      strategies: [strategy((ctx) => [buy(ctx.candle.close, { tag: 'a', purpose: 'entry' }), { kind: 'cancel', market: 'BTC_USDT', clientOrderId: 'tb-x-1' }])],
      clock: new ManualClock(), events,
    });
    const out = host.handleCandle('BTC_USDT', '1m', candles[0]!) as readonly { strategy: string; candleTime: number; interval: string; intent: { kind: string } }[];
    expect(out.map((s) => [s.strategy, s.interval, s.candleTime, s.intent.kind])).toEqual([
      ['s1', '1m', candles[0]!.time, 'stop_limit'], ['s1', '1m', candles[0]!.time, 'cancel'],
    ]);
    expect(log).toEqual(['intents:s1:2']);
  });

  test.each([
    ['a float price', { price: 100 }],
    ['a zero amount', { amount: new Decimal(0) }],
    ['a negative activation price', { activationPrice: new Decimal(-1) }],
    ['another market', { market: 'ETH_USDT' }],
    ['an unknown kind', { kind: 'market' }],
    ['an unknown field', { leverage: 5 }],
  ])('intents with %s are refused as invalid_intents', (_label, override) => {
    const { log, events } = recorder();
    const host = new StrategyHost({ strategies: [strategy((ctx) => [buy(ctx.candle.close, override)])], clock: new ManualClock(), events });
    expect(host.handleCandle('BTC_USDT', '1m', candles[0]!)).toEqual([]);
    expect(log).toEqual(['error:s1:invalid_intents:1']);
  });

  test('two orders with the same tag on one candle are refused (their client order ids would collide)', () => {
    const { log, events } = recorder();
    const host = new StrategyHost({ strategies: [strategy((ctx) => [buy(ctx.candle.close), buy(ctx.candle.close)])], clock: new ManualClock(), events });
    host.handleCandle('BTC_USDT', '1m', candles[0]!);
    expect(log).toEqual(['error:s1:invalid_intents:1']);
  });

  test('ctx carries params, state, clock time and the caller view', () => {
    const clock = new ManualClock(1_700_000_000_000);
    const seen: unknown[] = [];
    const s = strategy((ctx) => {
      ctx.state['count'] = ((ctx.state['count'] as number | undefined) ?? 0) + 1;
      seen.push([ctx.params.k, ctx.state['count'], ctx.nowMs, ctx.openOrders.length, ctx.balances['USDT']?.available.toString(), ctx.marketInfo]);
      return [];
    });
    const host = new StrategyHost({
      strategies: [s], clock,
      view: {
        balances: () => ({ USDT: { available: new Decimal(50), freeze: new Decimal(0) } }),
        openOrders: (name, market) => (name === 's1' && market === 'BTC_USDT' ? [{ clientOrderId: 'a', strategy: 's1', market, side: 'buy', kind: 'stop_limit', amount: new Decimal(1), price: new Decimal(1) }] : []),
      },
    });
    host.handleCandle('BTC_USDT', '1m', candles[0]!);
    host.handleCandle('BTC_USDT', '1m', candles[1]!);
    expect(seen).toEqual([[1, 1, 1_700_000_000_000, 1, '50', undefined], [1, 2, 1_700_000_000_000, 1, '50', undefined]]);
  });

  test('subscriptions list every (market, interval) pair', () => {
    const host = new StrategyHost({ strategies: [strategy(() => [])], clock: new ManualClock() });
    expect(host.subscriptions()).toEqual([{ market: 'BTC_USDT', interval: '1m' }]);
  });
});

