import { Command } from 'commander';
import { loadBacktestData, runBacktest } from '../../../src/backtest/run-backtest';
import { backtestSpecOf, parseCollateral, registerBacktestCommand } from '../../../src/cli/backtest-command';
import type { BacktestCliOptions } from '../../../src/cli/backtest-request';
import { Decimal } from '../../../src/domain/decimal';
import { BacktestInputError } from '../../../src/domain/errors';

/** `tradebot backtest --collateral separate|unified` reaches BacktestSpec.collateral (default separate, as live). */
describe('backtest --collateral', () => {
  const base: BacktestCliOptions = {
    strategy: 'rsi-reversion', data: [], balance: [], interval: '5m', params: '{"oversold":40}', out: 'unused', strategies: 'strategies', rankBy: 'netPnl',
    collateralBalance: ['USDT=10000'],
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

  test('--collateral-balance funds the collateral account (empty by default); the fill model options are checked', () => {
    expect(backtestSpecOf(base).collateralBalances).toEqual({ USDT: new Decimal('10000') });
    expect(backtestSpecOf({ ...base, collateralBalance: [] }).collateralBalances).toEqual({});
    expect(() => backtestSpecOf({ ...base, collateralBalance: ['USDT:5'] })).toThrow('--collateral-balance expects CURRENCY=AMOUNT');
    const spec = backtestSpecOf({ ...base, fillVolumeShare: 'off', ocoCancelOn: 'trigger' });
    expect([spec.fillModel?.volumeShare, spec.fillModel?.ocoCancelOn]).toEqual([null, 'trigger']);
    expect(backtestSpecOf(base).fillModel?.volumeShare?.toString()).toBe('0.1');
    expect(() => backtestSpecOf({ ...base, fillVolumeShare: '2' })).toThrow(/--fill-volume-share must be a decimal share/);
    expect(() => backtestSpecOf({ ...base, ocoCancelOn: 'never' })).toThrow(/--oco-cancel-on must be one of execution, trigger/);
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
