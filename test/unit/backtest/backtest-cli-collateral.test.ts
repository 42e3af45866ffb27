import { Command } from 'commander';
import { loadBacktestData, runBacktest } from '../../../src/backtest/run-backtest';
import { backtestSpecOf, parseCollateral, registerBacktestCommand, type BacktestCliOptions } from '../../../src/cli/backtest-command';
import { BacktestInputError } from '../../../src/domain/errors';

/** `tradebot backtest --collateral separate|unified` reaches BacktestSpec.collateral (default separate, as live). */
describe('backtest --collateral', () => {
  const base: BacktestCliOptions = {
    strategy: 'rsi-reversion', data: [], balance: [], interval: '5m', params: '{"oversold":40}', out: 'unused', strategies: 'strategies', rankBy: 'netPnl',
  };

  test('option registered with default separate; values parsed; anything else refused', () => {
    const program = new Command();
    registerBacktestCommand(program);
    const option = program.commands.find((c) => c.name() === 'backtest')?.options.find((o) => o.long === '--collateral');
    expect(option?.defaultValue).toBe('separate');
    expect(parseCollateral(undefined)).toBe('separate');
    expect(parseCollateral('unified')).toBe('unified');
    expect(() => parseCollateral('shared')).toThrow(BacktestInputError);
  });

  test('the mode is passed to the run: unified OCO exits sell the spot BTC, separate keeps it', async () => {
    const data = await loadBacktestData([{ market: 'BTC_USDT', file: 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv' }]);
    const separate = backtestSpecOf({ ...base, collateral: 'separate' });
    const unified = backtestSpecOf({ ...base, collateral: 'unified' });
    expect(separate.collateral).toBe('separate');
    expect(unified.collateral).toBe('unified');
    const btc = async (spec: typeof separate) => (await runBacktest(spec, data)).replay.finalBalances['BTC']?.available.toNumber() ?? 0;
    const kept = await btc(separate);
    expect(kept).toBeGreaterThan(0);
    expect(await btc(unified)).toBeLessThan(kept);
  });
});
