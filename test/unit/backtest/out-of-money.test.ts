import { Decimal } from '../../../src/domain/decimal';
import type { OrderLogEntry } from '../../../src/backtest/replay/order-log';
import { outOfMoney, outOfMoneyCell } from '../../../src/backtest/report/out-of-money';
import { formatSweepTable, runSweep, sweepRows } from '../../../src/backtest/sweep/run-sweep';
import type { SweepSetup } from '../../../src/backtest/sweep/sweep-types';

/** A run that ended because its money ran out says so in the sweep's table (column `money`). */
const entry = (time: number, outcome: OrderLogEntry['outcome'], rule?: string, kind: OrderLogEntry['kind'] = 'stop_limit'): OrderLogEntry => ({
  time, candleTime: time - 60, strategy: 's', market: 'BTC_USDT', kind, clientOrderId: undefined, side: 'buy', amount: new Decimal('0.01'), outcome, rule,
});

describe('outOfMoney', () => {
  test('the last three or more intents denied by balance (cancels left out): out since the first of them', () => {
    const log = [entry(60, 'placed'), entry(120, 'denied', 'balance'), entry(180, 'placed'), entry(240, 'denied', 'balance'),
      entry(300, 'canceled', undefined, 'cancel'), entry(360, 'denied', 'balance'), entry(420, 'denied', 'balance', 'oco')];
    expect(outOfMoney(log)).toEqual({ since: 240, denials: 3 });
    expect(outOfMoneyCell(outOfMoney(log))).toBe('OUT since 1970-01-01T00:04Z (3 balance denials)');
  });

  test('not out of money: a placed order at the end, other rules, or too short a streak', () => {
    expect(outOfMoney([])).toBeUndefined();
    expect(outOfMoney([entry(60, 'denied', 'balance'), entry(120, 'denied', 'balance'), entry(180, 'placed')])).toBeUndefined();
    expect(outOfMoney([entry(60, 'denied', 'max_open_orders'), entry(120, 'denied', 'max_open_orders'), entry(180, 'denied', 'max_open_orders')])).toBeUndefined();
    expect(outOfMoney([entry(60, 'placed'), entry(120, 'denied', 'balance'), entry(180, 'denied', 'balance')])).toBeUndefined();
    expect(outOfMoneyCell(undefined)).toBe('ok');
  });
});

test('a small sweep: the run whose entries drained the trading balance is flagged, the one that stayed funded is not', async () => {
  // docs/strategies.md's OCO example, as live (separate): every exit pays into the collateral account,
  // so 400 USDT entries exhaust 1500 USDT of trading balance after three round trips; 100 USDT ones never do.
  const setup: SweepSetup = {
    strategy: 'dip-oco', strategiesDir: 'test/fixtures/strategies-docs', data: [{ market: 'BTC_USDT', file: 'config/data/btc_usdt-1m-sample.csv' }],
    balances: { USDT: '1500' }, baseParams: {}, collateral: 'separate', collateralBalances: { USDT: '2000' },
  };
  const results = await runSweep(setup, { quoteAmount: ['100', '400'] }, { workers: 0 });
  const [small, large] = results;
  expect(small?.outOfMoney).toBeUndefined();
  expect(large?.outOfMoney?.denials).toBeGreaterThanOrEqual(3);
  const { header, rows } = sweepRows(results, 'netPnl');
  const money = header.indexOf('money');
  expect(header.slice(-3)).toEqual(['rejected', 'money', 'strategy']);
  expect(rows[0]?.[money]).toBe('ok');
  expect(rows[1]?.[money]).toMatch(/^OUT since 2021-09-\d\dT\d\d:\d\dZ \(\d+ balance denials\)$/);
  expect(formatSweepTable(results, 'netPnl')).toContain('OUT since');
}, 60_000);
