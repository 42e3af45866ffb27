import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const CLI = join(__dirname, '../../../dist/src/main.js');
const run = promisify(execFile);
const OUT = mkdtempSync(join(tmpdir(), 'tb-sweep-'));
const ARGS = [
  'backtest', '--strategy', 'sma-cross', '--data', 'BTC_USDT=test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv',
  '--interval', '5m', '--sweep', '{"fast":[5,10,20],"slow":[30,50]}', '--workers', '2', '--out', OUT,
];
/** The ranked table: stdout up to the lines naming the files written. */
const table = (stdout: string): string[] => stdout.trim().split('\n').filter((l) => !/^(sweep|\s)\s/.test(l));

test('a sweep over worker threads (built CLI): ranked table of every grid point, identical twice', async () => {
  if (!existsSync(CLI)) throw new Error('run "npm run build" first: this test runs dist/src/main.js');
  const first = await run('node', [CLI, ...ARGS], { cwd: join(__dirname, '../../..') });
  const lines = table(first.stdout);
  expect(lines[0]).toMatch(/^rank\s+params\s+netPnl/);
  expect(lines).toHaveLength(1 + 6);
  const pnl = lines.slice(1).map((l) => Number(l.split(/\s{2,}/)[2]));
  expect([...pnl].sort((a, b) => b - a)).toEqual(pnl); // ranked by net PnL, best first
  const second = await run('node', [CLI, ...ARGS, '--workers', '1'], { cwd: join(__dirname, '../../..') });
  expect(second.stdout).toBe(first.stdout);
  // Ranking by another metric reorders the same runs.
  const byDd = await run('node', [CLI, ...ARGS, '--rank-by', 'maxDrawdownPct'], { cwd: join(__dirname, '../../..') });
  expect(table(byDd.stdout)).toHaveLength(1 + 6);
  const dd = table(byDd.stdout).slice(1).map((l) => Number(l.split(/\s{2,}/)[4]));
  expect([...dd].sort((a, b) => a - b)).toEqual(dd); // smaller drawdown ranks first
}, 40_000);
