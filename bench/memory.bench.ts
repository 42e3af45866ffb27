import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { Candle } from '../src/domain/candle';
import { Decimal } from '../src/domain/decimal';
import { ManualClock } from '../src/core/clock';
import { loadStrategies } from '../src/strategy/strategy-loader';
import { StrategyHost } from '../src/strategy/strategy-host';
import type { BenchRow } from './bench-types';

/**
 * Memory after 1,000,000 closed candles through the StrategyHost and the three example strategies
 * (10 markets x 100,000 1m candles, every strategy on every market). Goal: no growth beyond the
 * bounded candle windows. Runs in a child process with --expose-gc so heap numbers are after a GC.
 */
const MARKETS = Array.from({ length: 10 }, (_, i) => `C${i}_USDT`);
const TOTAL = 1_000_000;

function mb(bytes: number): number {
  return Number((bytes / 1024 / 1024).toFixed(1));
}

async function child(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const root = path.resolve(__dirname, '..', '..');
  const config: Record<string, { markets: string[] }> = {};
  for (const name of ['sma-cross', 'rsi-reversion', 'donchian-breakout']) config[name] = { markets: MARKETS };
  const { strategies } = loadStrategies(path.join(root, 'strategies'), { config });
  const clock = new ManualClock(0);
  const host = new StrategyHost({ strategies: strategies.map((s) => ({ ...s, interval: '1m' as const })), clock, timeBudgetMs: Infinity });
  let price = 100;
  let seed = 7;
  const feed = async (n: number, from: number): Promise<number> => {
    let intents = 0;
    for (let i = 0; i < n / MARKETS.length; i++) {
      const time = (from + i) * 60;
      for (const market of MARKETS) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        price = Math.max(10, price * (1 + ((seed / 2147483648) - 0.5) * 0.01));
        const p = (x: number) => new Decimal(x.toFixed(2));
        const candle: Candle = { time, open: p(price), high: p(price * 1.002), low: p(price * 0.998), close: p(price * 1.001), volume: new Decimal(5), volumeMoney: new Decimal(500) };
        intents += (await host.handleCandle(market, '1m', candle)).length;
      }
    }
    return intents;
  };
  await feed(20_000, 0); // windows filled, code warmed up
  gc();
  const before = process.memoryUsage().heapUsed;
  const started = Date.now();
  const intents = await feed(TOTAL, 2_000);
  const after = process.memoryUsage().heapUsed;
  gc();
  const afterGc = process.memoryUsage().heapUsed;
  process.stdout.write(`${JSON.stringify({ before, after, afterGc, seconds: (Date.now() - started) / 1000, intents, strategies: strategies.length })}\n`);
}

export async function run(): Promise<BenchRow[]> {
  const r = spawnSync(process.execPath, ['--expose-gc', __filename, '--child'], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`memory bench child failed: ${r.stderr}`);
  const m = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { before: number; after: number; afterGc: number; seconds: number; intents: number; strategies: number };
  const note = `${TOTAL.toLocaleString('en-US')} candles, ${MARKETS.length} markets x ${m.strategies} strategies, ${m.intents} intents, ${m.seconds.toFixed(1)} s`;
  return [
    { name: 'heap before (after warm-up + GC)', value: mb(m.before), unit: 'MiB', note },
    { name: 'heap after 1M candles (no GC)', value: mb(m.after), unit: 'MiB' },
    { name: 'heap after 1M candles + GC', value: mb(m.afterGc), unit: 'MiB', note: 'goal: same as before (bounded windows)' },
    { name: 'growth after GC', value: mb(m.afterGc - m.before), unit: 'MiB' },
    { name: 'candles per second through host + 3 strategies', value: Math.round(TOTAL / m.seconds), unit: 'candles/s' },
  ];
}

if (process.argv.includes('--child')) {
  child().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  });
}
