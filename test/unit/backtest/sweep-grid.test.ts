import { BacktestInputError } from '../../../src/domain/errors';
import { expandGrid } from '../../../src/backtest/sweep/grid';
import { formatSweepTable, rankResults } from '../../../src/backtest/sweep/run-sweep';
import type { SweepRunResult } from '../../../src/backtest/sweep/sweep-types';

test('the grid expands in a fixed order, first key slowest', () => {
  expect(expandGrid({ fast: [5, 10], slow: [30, 50, 70] })).toEqual([
    { fast: 5, slow: 30 }, { fast: 5, slow: 50 }, { fast: 5, slow: 70 },
    { fast: 10, slow: 30 }, { fast: 10, slow: 50 }, { fast: 10, slow: 70 },
  ]);
  expect(() => expandGrid({})).toThrow(BacktestInputError);
  expect(() => expandGrid({ fast: 5 })).toThrow(/non-empty list/);
});

const r = (index: number, netPnl: string | undefined, maxDrawdownPct = 1): SweepRunResult =>
  netPnl === undefined ? { index, params: { i: index }, error: 'bad params' } : { index, params: { i: index }, metrics: { netPnl, maxDrawdownPct, sharpe: null } };

test('ranking: by net PnL descending, drawdown ascending, ties in grid order, failures last', () => {
  const results = [r(0, '5'), r(1, undefined), r(2, '12.5', 3), r(3, '5', 0.5), r(4, '-2', 0.1)];
  expect(rankResults(results).map((x) => x.index)).toEqual([2, 0, 3, 4, 1]);
  expect(rankResults(results, 'maxDrawdownPct').map((x) => x.index)).toEqual([4, 3, 0, 2, 1]);
  const table = formatSweepTable(rankResults(results), 'netPnl');
  expect(table.split('\n')[0]).toMatch(/^rank\s+params\s+netPnl/);
  expect(table).toContain('error: bad params');
});
