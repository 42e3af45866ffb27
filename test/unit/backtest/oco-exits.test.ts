import { Decimal } from '../../../src/domain/decimal';
import { loadBacktestData, runBacktest } from '../../../src/backtest/run-backtest';

/**
 * rsi-reversion enters with a spot stop-limit and exits with a sell OCO. On the live exchange OCO
 * exists only on the collateral (margin) account, so the simulator's default ('separate') margins
 * the OCO in USDT there: the exit is accepted and fills (as a short that offsets the spot long),
 * instead of being rejected because no BTC is on the collateral balance. 'unified' sells the spot BTC.
 */
describe('rsi-reversion OCO exits in a backtest', () => {
  const d = (v: string): Decimal => new Decimal(v);
  const fixture = 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv';
  const run = async (collateral?: 'separate' | 'unified', unfunded = false) => {
    const data = await loadBacktestData([{ market: 'BTC_USDT', file: fixture }]);
    // 5m candles and a mild oversold level so that a day of data has several round trips.
    // The collateral account is funded explicitly (as by a transfer on the venue).
    return runBacktest({
      strategy: 'rsi-reversion', interval: '5m', params: { oversold: 40 }, balances: { USDT: d('10000') }, collateral,
      collateralBalances: unfunded ? {} : { USDT: d('10000') },
    }, data);
  };

  test.each([[undefined], ['unified' as const]])('collateral %s: OCO exits are placed and fill, none rejected for funds', async (mode) => {
    const { replay } = await run(mode);
    const ocos = replay.orders.filter((o) => o.kind === 'oco');
    expect(ocos.length).toBeGreaterThan(0);
    expect(ocos.filter((o) => o.outcome === 'rejected')).toEqual([]);
    const ocoIds = new Set(ocos.map((o) => o.clientOrderId));
    const exitFills = replay.fills.filter((f) => f.side === 'sell' && ocoIds.has(f.clientOrderId));
    expect(exitFills.length).toBeGreaterThan(0);
    const buys = replay.fills.filter((f) => f.side === 'buy');
    expect(buys.length).toBeGreaterThanOrEqual(exitFills.length);
  });

  test('separate with an unfunded collateral account: every OCO exit is denied before it is sent (rule balance)', async () => {
    const { replay } = await run('separate', true);
    const ocos = replay.orders.filter((o) => o.kind === 'oco');
    expect(ocos.length).toBeGreaterThan(0);
    expect(ocos.every((o) => o.outcome === 'denied' && o.rule === 'balance')).toBe(true);
    expect(ocos[0]!.reason).toMatch(/USDT \(collateral\), 0 available/);
  });

  test('separate keeps the spot BTC (the exit is a short on the collateral account); unified sells it', async () => {
    const separate = await run();
    const unified = await run('unified');
    // On this data the strategy takes the same decisions in both modes: the exits fill at the same times and prices.
    const sells = (r: typeof separate) => r.replay.fills.filter((f) => f.side === 'sell').map((f) => [f.time, f.price.toString()]);
    expect(sells(unified)).toEqual(sells(separate));
    const bought = separate.replay.fills.filter((f) => f.side === 'buy').reduce((a, f) => a.plus(f.amount), d('0'));
    const soldUnified = unified.replay.fills.filter((f) => f.side === 'sell').reduce((a, f) => a.plus(f.amount), d('0'));
    const btc = (r: typeof separate) => r.replay.finalBalances['BTC']!;
    expect(btc(separate).available.plus(btc(separate).freeze).toString()).toBe(bought.toString());
    const boughtUnified = unified.replay.fills.filter((f) => f.side === 'buy').reduce((a, f) => a.plus(f.amount), d('0'));
    expect(btc(unified).available.plus(btc(unified).freeze).toString()).toBe(boughtUnified.minus(soldUnified).toString());
    // The report measures round trips from the fills, so its PnL is the same in both modes.
    expect(unified.result.metrics.netPnl.toString()).toBe(separate.result.metrics.netPnl.toString());
  });
});
