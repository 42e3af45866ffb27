import { Decimal } from '../../../src/domain/decimal';
import { BacktestReplay } from '../../../src/backtest/replay/backtest-replay';
import { loadNamedStrategy } from '../../../src/backtest/run-backtest';
import { loadCsvRows, rowToCandle } from '../../../src/candle-files/csv-candles';
import { simMarketInfo } from '../../../src/simulator/sim-markets';
import { probeStrategies } from '../../helpers/ctx-probe';

// What strategies are told about their orders in a backtest: fills (also partial), OCO exits,
// cancels, rejections and risk denials in ctx.events; ctx.position from their own fills; purpose on
// ctx.openOrders. (The same probe runs on the daemon's path in the parity test.)
const FIXTURE = 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv';

describe('ctx.events, ctx.position and openOrders[].purpose in a backtest', () => {
  const run = async (names: string[], dir?: string) => {
    const rows = (await loadCsvRows(FIXTURE)).slice(0, 1800);
    const load = (name: string) => loadNamedStrategy({ strategy: name, interval: '5m', balances: {}, ...(dir === undefined ? {} : { strategiesDir: dir }) }, ['BTC_USDT']);
    const probe = probeStrategies(names.map(load));
    const result = await new BacktestReplay({
      strategies: probe.strategies, markets: [{ info: simMarketInfo('BTC_USDT'), candles: rows.map(rowToCandle) }], dataInterval: '1m',
      balances: { USDT: new Decimal('10000') }, collateralBalances: { USDT: new Decimal('10000') },
    }).run();
    return { result, seen: probe.seen };
  };

  test('fills, OCO exits and cancels reach the strategy that placed them, once, on its next candle; the position follows', async () => {
    const { result, seen } = await run(['rsi-reversion', 'sma-cross']);
    const events = seen.flatMap((s) => s.events.map((e) => `${s.strategy} ${e}`));
    const fills = events.filter((e) => /^\S+ (partially_)?filled /.test(e));
    // Every deal of the run is told to its strategy once (on its next candle: the last one may come after the end).
    const toldBefore = (t: number) => result.fills.filter((f) => f.time < t).length;
    expect(fills).toHaveLength(toldBefore(seen[seen.length - 1]!.candleTime + 300));
    expect(fills.length).toBeGreaterThan(5);
    expect(events.some((e) => e.startsWith('rsi-reversion filled') && (e.includes('take_profit') || e.includes('stop_loss')))).toBe(true);
    expect(events.some((e) => e.startsWith('sma-cross cancelled'))).toBe(true);
    // An OCO leg ended by the other leg is not news.
    const ocoIds = new Set(result.orders.filter((o) => o.kind === 'oco').map((o) => o.clientOrderId));
    expect(events.filter((e) => e.includes('cancelled') && [...ocoIds].some((id) => id !== undefined && e.includes(id)))).toEqual([]);
    // Purpose on every open order (all the examples say it).
    const open = seen.flatMap((s) => s.openOrders);
    expect(open.length).toBeGreaterThan(0);
    expect(open.filter((o) => o.includes('no-purpose'))).toEqual([]);
    expect(open.some((o) => o.includes(' oco exit '))).toBe(true);
    // rsi-reversion: long after its entry fills, then flat or short after the exit.
    const rsi = seen.filter((s) => s.strategy === 'rsi-reversion');
    const afterBuy = rsi.findIndex((s) => s.events.some((e) => e.startsWith('filled') && e.includes(' buy ')));
    expect(afterBuy).toBeGreaterThan(0);
    expect(rsi[afterBuy]!.position).toMatch(/^0\.\d+ @\d+(\.\d+)? upnl -?\d/);
  });

  test('risk denials with the rule, on the next candle', async () => {
    const { seen } = await run(['denied-buyer'], 'test/fixtures/backtest-strategies');
    expect(seen[0]!.events).toEqual([]);
    expect(seen[1]!.events).toEqual(['denied balance', 'denied balance']);
    expect(seen[2]!.events).toEqual(['denied balance']);
  });
});
