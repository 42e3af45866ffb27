import type { Candle } from '../../../src/domain/candle';
import { Decimal } from '../../../src/domain/decimal';
import type { Intent } from '../../../src/domain/intent';
import { stopLimitId } from '../../../src/execution/journal/oco-ids';
import { BacktestReplay } from '../../../src/backtest/replay/backtest-replay';
import { loadBacktestData, runBacktest } from '../../../src/backtest/run-backtest';
import { simMarketInfo } from '../../../src/simulator/sim-markets';
import { prepareStrategy } from '../../../src/strategy/prepare-strategy';
import { defineStrategy, z } from '../../../src/strategy/strategy';

const T0 = 1_700_000_040;
const d = (v: string) => new Decimal(v);
function candles(rows: [string, string, string, string][], step = 60): Candle[] {
  return rows.map(([o, h, l, c], i) => ({ time: T0 + i * step, open: d(o), high: d(h), low: d(l), close: d(c), volume: d('1'), volumeMoney: d(c) }));
}

interface Seen { n: number; open: number; btc: string | undefined; usdt: string | undefined; nowMs: number }

/** Places a buy stop on its 2nd candle, then a too-large sell and a cancel of an unknown id on its 4th. */
function probe(log: Seen[]) {
  return prepareStrategy(defineStrategy({
    name: 'probe', markets: ['BTC_USDT'], interval: '1m', warmup: 0, params: z.object({}),
    initState: () => ({ n: 0 }),
    onCandle(ctx): Intent[] {
      ctx.state.n++;
      log.push({ n: ctx.state.n, open: ctx.openOrders.length, btc: ctx.balances['BTC']?.available.toString(), usdt: ctx.balances['USDT']?.available.toString(), nowMs: ctx.nowMs });
      if (ctx.state.n === 2) return [{ kind: 'stop_limit', market: 'BTC_USDT', side: 'buy', amount: d('0.1'), activationPrice: d('102'), price: d('103.004') }];
      if (ctx.state.n === 4) {
        return [
          { kind: 'stop_limit', market: 'BTC_USDT', side: 'sell', amount: d('5'), activationPrice: d('90'), price: d('89') },
          { kind: 'cancel', market: 'BTC_USDT', clientOrderId: 'tb-nope' },
        ];
      }
      return [];
    },
  }));
}

test('intents go through risk, rounding and the engine at the candle close; fills come back to ctx', async () => {
  const log: Seen[] = [];
  const result = await new BacktestReplay({
    strategies: [probe(log)],
    markets: [{ info: simMarketInfo('BTC_USDT'), candles: candles([
      ['100', '101', '99', '100'],
      ['100', '101', '99', '100'], // strategy places the buy stop at this close
      ['100', '104', '99.5', '103'], // low first (nearer), then up through 102: triggered, fills at 102 as taker
      ['103', '103.5', '102.5', '103'],
    ]) }],
    dataInterval: '1m',
    balances: { USDT: d('10000') },
  }).run();

  // Placed at the close of the 2nd candle, with the price rounded down for a buy (103.004 -> 103.00).
  const placed = result.orders[0]!;
  expect(placed).toMatchObject({ outcome: 'placed', kind: 'stop_limit', side: 'buy', time: T0 + 120, candleTime: T0 + 60 });
  expect(placed.clientOrderId).toBe(stopLimitId({ strategy: 'probe', market: 'BTC_USDT', candleTime: T0 + 60 }));
  expect(placed.price!.toString()).toBe('103');

  expect(result.fills).toHaveLength(1);
  const fill = result.fills[0]!;
  expect(fill).toMatchObject({ side: 'buy', role: 'taker', time: T0 + 180, clientOrderId: placed.clientOrderId });
  expect(fill.price.toString()).toBe('102');
  expect(fill.fee.toString()).toBe('0.0102');

  // What the strategy saw: the open order after placing, then the fill in its balances.
  expect(log.map((s) => s.open)).toEqual([0, 0, 0, 0]);
  expect(log[2]).toMatchObject({ btc: '0.1', usdt: '9989.7898', nowMs: (T0 + 180) * 1000 });

  // The oversized sell is denied by the risk engine's balance check; the unknown cancel as the executor does.
  expect(result.orders.slice(1).map((o) => [o.kind, o.outcome, o.rule])).toEqual([
    ['stop_limit', 'denied', 'balance'],
    ['cancel', 'denied', 'cancel_unknown'],
  ]);
  expect(result.finalBalances['BTC']!.available.toString()).toBe('0.1');
});

test('an order resting across candles is listed in ctx.openOrders until it fills', async () => {
  const seen: number[] = [];
  const strategy = prepareStrategy(defineStrategy({
    name: 'rester', markets: ['BTC_USDT'], interval: '1m', warmup: 0, params: z.object({}),
    onCandle(ctx): Intent[] {
      seen.push(ctx.openOrders.length);
      return ctx.candle.time === T0 ? [{ kind: 'stop_limit', market: 'BTC_USDT', side: 'buy', amount: d('0.1'), activationPrice: d('110'), price: d('111') }] : [];
    },
  }));
  const result = await new BacktestReplay({
    strategies: [strategy],
    markets: [{ info: simMarketInfo('BTC_USDT'), candles: candles([
      ['100', '101', '99', '100'], ['100', '105', '99', '104'], ['104', '112', '103', '111'], ['111', '112', '110', '111'],
    ]) }],
    dataInterval: '1m', balances: { USDT: d('1000') },
  }).run();
  expect(seen).toEqual([0, 1, 0, 0]);
  expect(result.fills[0]!.price.toString()).toBe('110');
});

test('1h strategy candles built from 1m data; a bucket cut by a data gap closes at its own end', async () => {
  const times: [number, number][] = [];
  const strategy = prepareStrategy(defineStrategy({
    name: 'hourly', markets: ['BTC_USDT'], interval: '1h', warmup: 0, params: z.object({}),
    onCandle(ctx) {
      times.push([ctx.candle.time, ctx.nowMs / 1000]);
      return [];
    },
  }));
  const H = 1_700_002_800; // hour-aligned
  const rows: Candle[] = [];
  for (let m = 0; m < 60; m++) rows.push({ time: H + m * 60, open: d('1'), high: d('2'), low: d('1'), close: d('1'), volume: d('1'), volumeMoney: d('1') });
  for (let m = 0; m < 30; m++) rows.push({ time: H + 3600 + m * 60, open: d('1'), high: d('3'), low: d('1'), close: d('2'), volume: d('1'), volumeMoney: d('2') });
  rows.push({ time: H + 3 * 3600, open: d('2'), high: d('2'), low: d('2'), close: d('2'), volume: d('1'), volumeMoney: d('2') });
  await new BacktestReplay({ strategies: [strategy], markets: [{ info: simMarketInfo('BTC_USDT'), candles: rows }], dataInterval: '1m', balances: {} }).run();
  expect(times).toEqual([[H, H + 3600], [H + 3600, H + 7200]]);
});

test('a data gap closes the open buckets of every interval on the market, each at its own end, before the next data candle', async () => {
  const seen: string[] = [];
  const on = (name: string, interval: '5m' | '1h') => prepareStrategy(defineStrategy({
    name, markets: ['BTC_USDT'], interval, warmup: 0, params: z.object({}),
    onCandle(ctx) {
      seen.push(`${name} ${ctx.candle.time} at ${ctx.nowMs / 1000}`);
      return [];
    },
  }));
  const H = 1_700_002_800; // hour-aligned
  const rows: Candle[] = [];
  // 0:00-0:06, then nothing until 2:00: the 0:05 bucket and the 0:00 hour are left open by the gap.
  for (const m of [0, 1, 2, 3, 4, 5, 6, 120]) rows.push({ time: H + m * 60, open: d('1'), high: d('1'), low: d('1'), close: d('1'), volume: d('1'), volumeMoney: d('1') });
  await new BacktestReplay({
    strategies: [on('five', '5m'), on('hourly', '1h')], markets: [{ info: simMarketInfo('BTC_USDT'), candles: rows }], dataInterval: '1m', balances: {},
  }).run();
  expect(seen).toEqual([
    `five ${H} at ${H + 300}`,
    `hourly ${H} at ${H + 3600}`,
    `five ${H + 300} at ${H + 600}`,
  ]);
});

test('the same data and parameters give the same orders and fills twice (real candles)', async () => {
  const data = await loadBacktestData([{ market: 'BTC_USDT', file: 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv' }]);
  const run = async () => {
    const out = await runBacktest({ strategy: 'sma-cross', interval: '5m', balances: { USDT: d('10000') } }, data);
    return JSON.stringify({ orders: out.replay.orders, fills: out.replay.fills, pnl: out.result.metrics.netPnl });
  };
  const first = await run();
  expect(JSON.parse(first).fills.length).toBeGreaterThan(4);
  expect(await run()).toBe(first);
});
