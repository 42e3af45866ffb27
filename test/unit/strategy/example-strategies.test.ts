import * as path from 'node:path';
import { ManualClock } from '../../../src/core/clock';
import type { StampedIntent } from '../../../src/strategy/intent-validation';
import { loadStrategies } from '../../../src/strategy/strategy-loader';
import { StrategyHost } from '../../../src/strategy/strategy-host';
import { readCandles } from './candle-fixture';
import { PaperBook } from './paper-book';
import { Decimal } from '../../../src/domain/decimal';
import { looksFilled } from '../../../strategies/_sizing';

const loaded = loadStrategies(path.resolve(__dirname, '../../../strategies'));
const candles = readCandles('btc_usdt-1h-binance-2017-2022.csv', 3000, 20_000);

function run(name: string) {
  const strategy = loaded.strategies.find((s) => s.name === name)!;
  const book = new PaperBook('BTC_USDT');
  const host = new StrategyHost({ strategies: [strategy], clock: new ManualClock(), view: book.view(), timeBudgetMs: Number.POSITIVE_INFINITY });
  const intents: StampedIntent[] = [];
  let maxOpen = 0;
  for (const c of candles) {
    book.match(c);
    const out = host.handleCandle('BTC_USDT', '1h', c) as readonly StampedIntent[];
    intents.push(...out);
    book.apply(out);
    maxOpen = Math.max(maxOpen, book.orders.length);
  }
  expect(host.stats(name).errors).toBe(0);
  const orders = intents.map((s) => s.intent).flatMap((i) => (i.kind === 'cancel' ? [] : [i]));
  return { intents, orders, book, maxOpen, closeAt: new Map(candles.map((c) => [c.time, c.close])) };
}

describe.each(['sma-cross', 'rsi-reversion', 'donchian-breakout'])('%s on real BTC/USDT 1h candles', (name) => {
  const r = run(name);

  test('places entries and exits, but never piles up orders', () => {
    expect(r.orders.filter((i) => i.side === 'buy').length).toBeGreaterThan(5);
    expect(r.orders.filter((i) => i.side === 'sell').length).toBeGreaterThan(5);
    expect(r.orders.length).toBeLessThan(candles.length / 5);
    expect(r.maxOpen).toBeLessThanOrEqual(1);
    expect(r.book.fills.length).toBeGreaterThan(5);
    expect(r.book.stock.greaterThanOrEqualTo(0)).toBe(true);
  });

  test('entries are buy stops above their trigger, exits are sells below (or OCO around) the entry', () => {
    for (const i of r.orders) {
      if (i.kind === 'trailing_stop') throw new Error('the examples place no trailing stops');
      if (i.side === 'buy') {
        expect(i.purpose).toBe('entry');
        expect(i.price.greaterThanOrEqualTo(i.activationPrice)).toBe(true);
        // sized from the default quoteAmount of 100 USDT
        expect(i.amount.times(i.activationPrice).toNumber()).toBeGreaterThan(99.9);
        expect(i.amount.times(i.activationPrice).toNumber()).toBeLessThanOrEqual(100);
      } else {
        expect(i.purpose).toBe('exit');
        if (i.kind === 'oco') {
          expect(i.price.greaterThan(i.activationPrice)).toBe(true);
          expect(i.stopLimitPrice.lessThanOrEqualTo(i.activationPrice)).toBe(true);
        } else {
          expect(i.price.lessThanOrEqualTo(i.activationPrice)).toBe(true);
        }
      }
    }
  });

  test('is deterministic', () => {
    const again = run(name);
    const key = (x: readonly StampedIntent[]) => JSON.stringify(x.map((s) => ({ ...s, intent: { ...s.intent } })));
    expect(key(again.intents)).toBe(key(r.intents));
  });
});

test('sma-cross enters 0.1 % above the close of the golden-cross candle', () => {
  const r = run('sma-cross');
  const first = r.intents.find((s) => s.intent.kind === 'stop_limit' && s.intent.side === 'buy')!;
  const close = r.closeAt.get(first.candleTime)!;
  if (first.intent.kind !== 'stop_limit') throw new Error('unexpected');
  expect(first.intent.activationPrice.toString()).toBe(close.times('1.001').toDecimalPlaces(2).toString());
});

test('rsi-reversion exits with an OCO', () => {
  expect(run('rsi-reversion').orders.some((i) => i.kind === 'oco')).toBe(true);
});

test('on an account shared with other strategies, the examples act on their own position, not the account balance', () => {
  // Another strategy bought 5 BTC: the balance shows it, this strategy's position does not.
  const ctx = { position: { amount: new Decimal(0), averageEntry: undefined, unrealizedPnl: new Decimal(0) }, balances: { BTC: { available: new Decimal(5), freeze: new Decimal(0) } } };
  expect(looksFilled(ctx as unknown as Parameters<typeof looksFilled>[0], new Decimal('0.1'))).toBe(false);
  const held = { ...ctx, position: { ...ctx.position, amount: new Decimal('0.1') } };
  expect(looksFilled(held as unknown as Parameters<typeof looksFilled>[0], new Decimal('0.1'))).toBe(true);
});
