import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The built CLI (`tradebot backtest`) as a strategy author meets it: a failing strategy fails the
 * command, typos are refused with the valid names, a sweep writes to --out, walk-forward runs.
 */
const ROOT = join(__dirname, '../../..');
const CLI = join(ROOT, 'dist/src/main.js');
const DATA = 'BTC_USDT=test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv';
const FIXTURES = 'test/fixtures/backtest-strategies';

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('node', [CLI, 'backtest', ...args], { cwd: ROOT }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}
const out = (): string => mkdtempSync(join(tmpdir(), 'tb-cli-'));

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error('run "npm run build" first: this test runs dist/src/main.js');
});

test('a strategy that throws makes the command fail, unless the author accepts it explicitly', async () => {
  const dir = out();
  const failed = await cli(['--strategy', 'thrower', '--strategies', FIXTURES, '--data', DATA, '--out', dir]);
  expect(failed.code).toBe(1);
  expect(failed.stdout).toMatch(/health {7}FAILED: 5 calls, 5 errors/);
  expect(failed.stderr).toMatch(/the strategy failed during this run.*pass --allow-strategy-errors/);
  // The report and the log are written all the same, and say so.
  expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('data-failed="true"');
  const log = readFileSync(join(dir, 'backtest.log'), 'utf8');
  expect(log).toContain('about to fail');
  expect(log).toContain('strategy failed');

  const accepted = await cli(['--strategy', 'thrower', '--strategies', FIXTURES, '--data', DATA, '--out', out(), '--allow-strategy-errors']);
  expect(accepted.code).toBe(0);
  expect(accepted.stderr).toMatch(/exit code 0 because of --allow-strategy-errors/);
}, 30_000);

test('typos are refused with the valid names: a parameter, a sweep key, a ranking metric, a risk key', async () => {
  const param = await cli(['--strategy', 'sma-cross', '--data', DATA, '--params', '{"fsat":5}', '--out', out()]);
  expect(param.code).toBe(1);
  expect(param.stderr).toMatch(/TB_ERR_STRATEGY_LOAD: strategy sma-cross: unknown parameter "fsat" \(known: fast, slow/);

  const sweepKey = await cli(['--strategy', 'sma-cross', '--data', DATA, '--sweep', '{"fast":[5],"slwo":[30]}', '--workers', '0', '--out', out()]);
  expect(sweepKey.code).toBe(1);
  expect(sweepKey.stderr).toMatch(/--sweep: unknown parameter "slwo" of sma-cross \(known: fast, slow/);

  const metric = await cli(['--strategy', 'sma-cross', '--data', DATA, '--sweep', '{"fast":[5]}', '--rank-by', 'profit', '--out', out()]);
  expect(metric.code).toBe(1);
  expect(metric.stderr).toMatch(/--rank-by: unknown metric "profit" \(metrics: endEquity, netPnl, returnPct/);

  const risk = await cli(['--strategy', 'sma-cross', '--data', DATA, '--risk', '{"dailyLoss":"5"}', '--out', out()]);
  expect(risk.code).toBe(1);
  expect(risk.stderr).toMatch(/--risk: .*dailyLoss/);

  const stray = await cli(['--strategy', 'sma-cross', '--data', DATA, '--rank-by', 'sharpe', '--out', out()]);
  expect(stray.code).toBe(1);
  expect(stray.stderr).toMatch(/--rank-by only apply to --sweep/);
}, 40_000);

test('--sweep honours --out: sweep.json and sweep.csv hold the ranked table', async () => {
  const dir = out();
  const r = await cli(['--strategy', 'sma-cross', '--data', DATA, '--interval', '5m', '--sweep', '{"fast":[5,10],"slow":[30]}', '--workers', '2', '--out', dir]);
  expect(r.code).toBe(0);
  const json = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8')) as { rankBy: string; results: { rank: number; params: unknown; strategy: { failed: boolean } }[] };
  expect(json.rankBy).toBe('netPnl');
  expect(json.results.map((x) => x.rank)).toEqual([1, 2]);
  expect(json.results.every((x) => x.strategy.failed === false)).toBe(true);
  const csv = readFileSync(join(dir, 'sweep.csv'), 'utf8').trim().split('\n');
  expect(csv[0]).toBe('rank,params,netPnl,returnPct,maxDrawdownPct,tradeCount,winRate,profitFactor,sharpe,denied,rejected,money,strategy');
  expect(csv).toHaveLength(3);
  expect(r.stdout).toContain(join(dir, 'sweep.json'));
}, 40_000);

test('--walk-forward: each train window swept, the winner run on the next test window, folds and the stitched curve written', async () => {
  const dir = out();
  const r = await cli([
    '--strategy', 'sma-cross', '--data', DATA, '--interval', '5m', '--sweep', '{"fast":[5,10],"slow":[20,30]}',
    '--walk-forward', '{"train":"12h","test":"6h"}', '--workers', '2', '--out', dir,
  ]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const wf = JSON.parse(readFileSync(join(dir, 'walk-forward.json'), 'utf8')) as {
    folds: { fold: { trainFrom: number; trainTo: number; testFrom: number; testTo: number }; trainRuns: number; best?: { params: object }; test?: { metrics: object } }[];
    outOfSample: { equity: { time: number; equity: string }[]; startEquity: string };
  };
  expect(wf.folds.length).toBeGreaterThanOrEqual(2);
  for (const f of wf.folds) {
    expect(f.trainRuns).toBe(4);
    expect(f.fold.trainTo - f.fold.trainFrom).toBe(12 * 3600);
    expect(f.fold.testFrom).toBe(f.fold.trainTo);
    expect(f.best).toBeDefined();
    expect(f.test?.metrics).toBeDefined();
  }
  // Test windows tile the data after the first train window.
  expect(wf.folds[1]!.fold.testFrom).toBe(wf.folds[0]!.fold.testTo);
  expect(wf.outOfSample.startEquity).toBe('10000');
  const times = wf.outOfSample.equity.map((p) => p.time);
  expect(times[0]).toBe(wf.folds[0]!.fold.testFrom);
  expect([...times].sort((a, b) => a - b)).toEqual(times);
  expect(readFileSync(join(dir, 'walk-forward.html'), 'utf8')).toContain('id="oos-equity-chart"');
  expect(r.stdout).toMatch(/^fold +train +test +best params/);
  expect(r.stdout).toMatch(/out of sample: return/);
}, 60_000);
