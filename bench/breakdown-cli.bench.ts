import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import type { BenchRow } from './bench-types';
import { isGc, onStack, stagesOf, type CpuProfile, type ProfileFrame, type StageRule } from './profile-stages';
import { writeYearCsv } from './year-csv';

/**
 * Where the backtest CLI's wall time goes (issue #23: "show where each remaining millisecond goes"),
 * for the runs backtest-cli.bench.ts times: `tradebot backtest --strategy sma-cross` on the real 1m
 * month and on the year, each run once unprofiled (wall) and once under `node --cpu-prof` (100 us
 * samples). Each sample is charged to the phase on its stack: module loading, reading the CSV,
 * loading the strategy, the replay, the analysis (metrics, curve, trades), writing the reports, GC,
 * the rest (commander, summary, start-up). Node's own start is `node -e 0`, timed apart. Phase times
 * are scaled from the profiled run to the unprofiled wall time minus Node's start.
 */
const ROOT = path.resolve(__dirname, __dirname.includes(`${path.sep}dist${path.sep}`) ? '../..' : '..');
const MAIN = path.join(ROOT, 'dist/src/main.js');
const MONTH = ['/work/shared/data/btc_usdt-1m-binance-2021-09.csv', path.join(ROOT, 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv')].find((f) => existsSync(f));
const RUNS = 5;

const inFile = (re: RegExp) => (stack: readonly ProfileFrame[]): boolean => stack.some((f) => re.test(f.url));
const RULES: readonly StageRule[] = [
  ['garbage collector', isGc],
  ['idle (waiting for the file system)', (stack) => stack[0]?.functionName === '(idle)'],
  ['module loading (require, compile)', (stack) => onStack(stack, 'Module._load') && !onStack(stack, 'loadNamedStrategy')],
  ['loading the strategy (transpile, params)', (stack) => onStack(stack, 'loadNamedStrategy')],
  ['reading the CSV (parse, hash, slice)', inFile(/src\/(market-data\/csv-[^/]+|backtest\/data\/[^/]+)\.js$/)],
  // The kernel's awaited steps resume from the microtask queue, with no replay frame under them.
  ['replay (engine, strategy, kernel)', inFile(/src\/(backtest\/replay|execution|simulator|strategy|portfolio|store|risk)\/|\/strategies\//)],
  ['writing report.json + report.html', inFile(/src\/backtest\/report\/(write-report|html-report|json-report|svg-chart|downsample)\.js$/)],
  ['analysis (metrics, equity curve, trades)', inFile(/src\/backtest\/report\/[^/]+\.js$/)],
];

function wallSeconds(args: readonly string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

export async function run(): Promise<BenchRow[]> {
  if (MONTH === undefined) throw new Error('no 1m candle data found');
  if (!existsSync(MAIN)) throw new Error(`${MAIN} missing: npm run build first`);
  const dir = mkdtempSync(path.join(tmpdir(), 'backtest-cli-breakdown-'));
  const rows: BenchRow[] = [];
  try {
    const year = path.join(dir, 'btc-1m-year.csv');
    await writeYearCsv(MONTH, year, 525_600);
    const load = loadavg()[0] as number;
    wallSeconds(['-e', '0']);
    const bare = median(Array.from({ length: RUNS }, () => wallSeconds(['-e', '0'])));
    rows.push({ name: 'Node start (node -e 0)', value: Math.round(bare * 1000), unit: 'ms', note: `median of ${RUNS}; load ${load.toFixed(2)} at start` });
    for (const [label, file] of [['month', MONTH], ['year', year]] as const) {
      const cli = (out: string, extra: readonly string[] = []): string[] => [
        ...extra, MAIN, 'backtest', '--strategy', 'sma-cross', '--strategies', path.join(ROOT, 'strategies'), '--data', `BTC_USDT=${file}`, '--out', path.join(dir, out),
      ];
      wallSeconds(cli('warm'));
      const wall = median(Array.from({ length: RUNS }, (_, i) => wallSeconds(cli(`out-${i}`))));
      const profDir = path.join(dir, `prof-${label}`);
      wallSeconds(cli('profiled', ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=100']));
      const profileFile = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile')) as string;
      const stages = stagesOf(JSON.parse(readFileSync(path.join(profDir, profileFile), 'utf8')) as CpuProfile, RULES, 'the rest (CLI, summary, start-up)');
      let total = 0;
      for (const us of stages.values()) total += us;
      const scale = ((wall - bare) * 1000) / total; // ms of the unprofiled run per profiled us
      rows.push({ name: `${label}: CLI end to end (unprofiled)`, value: Math.round(wall * 1000), unit: 'ms', note: `median of ${RUNS}; minus Node's start ${Math.round((wall - bare) * 1000)} ms` });
      for (const [name, us] of [...stages.entries()].sort((a, b) => b[1] - a[1])) {
        rows.push({ name: `${label}: ${name}`, value: Number((us * scale).toFixed(1)), unit: 'ms', note: `${((us / total) * 100).toFixed(1)} % of the time after Node's start` });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
