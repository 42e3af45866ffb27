import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { BacktestReplay } from '../src/backtest/replay/backtest-replay';
import { loadNamedStrategy } from '../src/backtest/run-backtest';
import { Decimal } from '../src/domain/decimal';
import { readCsvColumns } from '../src/candle-files/csv-columns';
import { simMarketInfo } from '../src/simulator/sim-markets';
import type { BenchRow } from './bench-types';
import { writeYearCsv } from './year-csv';

/**
 * The backtest CLI end to end, as an author runs it: `node dist/src/main.js backtest --strategy
 * sma-cross --data BTC_USDT=<file>` in a child process (process start, module loading, streaming the
 * CSV, loading only the strategy's module, the run, report.json + report.html + backtest.log, the
 * summary), on the real 1m BTC/USDT month (43,079 rows) and on a year (525,600 rows: the month
 * repeated with shifted times by bench/year-csv.ts, written to a temporary file). Goals (issue #23):
 * a month < 0.3 s, a year < 0.8 s wall on a quiet machine. Median of RUNS runs after one unmeasured
 * run (which fills the transpile cache and the OS file cache), wall and CPU (user + system) time.
 * In the same run: `node -e 0` (the process start no CLI can avoid, same median), the CLI minus it,
 * the replay alone (host + strategy + risk + engine, no loading, no report) on the year's candles
 * in candles/s, report.json's size, and the load average.
 */
const RUNS = 5;
const YEAR = 525_600;
const ROOT = path.resolve(__dirname, __dirname.includes(`${path.sep}dist${path.sep}`) ? '../..' : '..');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const MONTH = ['/work/shared/data/btc_usdt-1m-binance-2021-09.csv', path.join(ROOT, 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv')].find((f) => existsSync(f));

/**
 * CPU seconds (user + system) of this process's waited-for children, from /proc/self/stat (Linux;
 * clock ticks of 1/100 s): on a shared machine a child's CPU time moves less with the load than its
 * wall time, and on an idle machine it is close to the wall time (the CLI runs on one thread).
 */
function childrenCpuSeconds(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100; // cutime, cstime
  } catch {
    return undefined;
  }
}

function childSeconds(args: readonly string[]): { wall: number; cpu: number | undefined } {
  const cpu0 = childrenCpuSeconds();
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu1 = childrenCpuSeconds();
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall, cpu: cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0 };
}

function cliSeconds(file: string, out: string): { wall: number; cpu: number | undefined } {
  return childSeconds([MAIN, 'backtest', '--strategy', 'sma-cross', '--strategies', path.join(ROOT, 'strategies'), '--data', `BTC_USDT=${file}`, '--out', out]);
}

/** Median wall and CPU seconds of RUNS runs after one unmeasured one, with the load average seen before each. */
function measure(once: (i: number) => { wall: number; cpu: number | undefined }, load: number[]): { wall: number[]; cpu: number[] } {
  once(-1);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    load.push(loadavg()[0] as number);
    const t = once(i);
    wall.push(t.wall);
    if (t.cpu !== undefined) cpu.push(t.cpu);
  }
  return { wall, cpu };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function replayRate(file: string): Promise<number> {
  const candles = (await readCsvColumns(file)).columns.candles();
  const strategy = loadNamedStrategy({ strategy: 'sma-cross', strategiesDir: path.join(ROOT, 'strategies'), balances: {} }, ['BTC_USDT']);
  const replay = new BacktestReplay({
    strategies: [strategy], markets: [{ info: simMarketInfo('BTC_USDT'), candles }], dataInterval: '1m', balances: { USDT: new Decimal(10_000) },
  });
  const start = process.hrtime.bigint();
  await replay.run();
  return candles.length / (Number(process.hrtime.bigint() - start) / 1e9);
}

export async function run(): Promise<BenchRow[]> {
  if (MONTH === undefined) throw new Error('no 1m candle data found');
  if (!existsSync(MAIN)) throw new Error(`${MAIN} missing: npm run build first`);
  const dir = mkdtempSync(path.join(tmpdir(), 'backtest-cli-bench-'));
  const rows: BenchRow[] = [];
  try {
    const year = path.join(dir, 'btc-1m-year.csv');
    await writeYearCsv(MONTH, year, YEAR);
    const load: number[] = [];
    const bare = measure(() => childSeconds(['-e', '0']), load);
    const bareWall = median(bare.wall);
    const bareCpu = bare.cpu.length > 0 ? median(bare.cpu) : undefined;
    rows.push({ name: 'node -e 0 (process start)', value: Number(bareWall.toFixed(3)), unit: 's wall', note: `median of ${RUNS}${bareCpu === undefined ? '' : `; ${bareCpu.toFixed(3)} s CPU`}` });
    for (const [label, file, goal] of [['month (43,079 rows)', MONTH, 0.3], ['year (525,600 rows)', year, 0.8]] as const) {
      const t = measure((i) => cliSeconds(file, path.join(dir, i < 0 ? 'warm' : `out-${i}`)), load);
      const wall = median(t.wall);
      rows.push({
        name: `CLI end to end, sma-cross 1h on a 1m ${label}`, value: Number(wall.toFixed(3)), unit: 's wall',
        note: `median of ${RUNS} (${t.wall.map((x) => x.toFixed(2)).join(', ')}); goal < ${goal} s`,
      });
      rows.push({ name: `CLI end to end, ${label}, minus node -e 0`, value: Number((wall - bareWall).toFixed(3)), unit: 's wall', note: 'what the backtest itself costs' });
      if (t.cpu.length > 0) {
        rows.push({ name: `CLI end to end, ${label}: CPU (user + system)`, value: Number(median(t.cpu).toFixed(3)), unit: 's CPU', note: `median of ${t.cpu.length} (${t.cpu.map((x) => x.toFixed(2)).join(', ')})` });
      }
      rows.push({ name: `report.json of the ${label}`, value: Math.round(statSync(path.join(dir, 'out-0', 'report.json')).size / 1024), unit: 'kB', note: 'the curve at the strategy interval (format 3)' });
    }
    const rates: number[] = [];
    for (let i = 0; i < 3; i++) rates.push(await replayRate(year));
    rows.push({ name: 'replay alone (host + sma-cross 1h + risk + engine) on the year', value: Math.round(Math.max(...rates)), unit: 'candles/s', note: 'best of 3, in this process' });
    rows.push({ name: 'load average (1 min) during the CLI runs', value: Number((load.reduce((a, b) => a + b, 0) / load.length).toFixed(2)), unit: '', note: `min ${Math.min(...load).toFixed(2)}, max ${Math.max(...load).toFixed(2)}` });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
