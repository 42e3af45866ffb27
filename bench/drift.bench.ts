import * as path from 'node:path';
import { ManualClock } from '../src/core/clock';
import { Decimal } from '../src/domain/decimal';
import { parseRiskOption } from '../src/backtest/options';
import { readCsvCandles } from '../src/candle-files/csv-candles';
import { runDrift } from '../src/drift/run-drift';
import { InMemoryDeploymentLog } from '../src/store/memory/in-memory-deployment-log';
import { InMemoryLeaseStore } from '../src/store/memory/in-memory-lease-store';
import { InMemoryOrderStore } from '../src/store/memory/in-memory-order-store';
import type { BenchRow } from './bench-types';

/**
 * CPU cost of one drift check (`runDrift`, what `tradebot drift` and the daemon's periodic check run
 * in their child process): the recorded candles of a window replayed through the backtester with the
 * test strategy `churn` (an order on every candle: the worst case for the comparison), then compared
 * with the journal. Windows of 1 hour (the default drift.windowMinutes) and of the whole sample
 * (4000 1m candles, ~2.8 days). The store reads are in memory here; the child adds Node's start-up
 * and the Redis reads (one ZRANGEBYSCORE per market, one journal scan).
 *
 *   npm run build && node dist/bench/run.js drift
 */
export async function run(): Promise<BenchRow[]> {
  const root = path.resolve(__dirname, '..', '..');
  const log = new InMemoryDeploymentLog({ retentionSec: 365 * 86_400, maxEntries: 1_000_000 });
  let first = 0;
  let last = 0;
  for await (const c of readCsvCandles(path.join(root, 'config/data/btc_usdt-1m-sample.csv'))) {
    if (first === 0) first = c.time;
    last = c.time;
    await log.recordCandle({
      market: 'BTC_USDT', interval: '1m', time: c.time, open: c.open.toString(), high: c.high.toString(), low: c.low.toString(),
      close: c.close.toString(), volume: c.volume.toString(), volumeMoney: c.volumeMoney.toString(), source: 'live', stale: false, receivedMarketMs: (c.time + 61) * 1000,
    });
  }
  const clock = new ManualClock(0);
  const journal = new InMemoryOrderStore(new InMemoryLeaseStore(clock), clock);
  const spec = (from: number, to: number) => ({
    from, to, strategies: [{ name: 'churn' }], strategiesDir: path.join(root, 'test/integration/app/strategies'),
    risk: parseRiskOption(undefined), balances: { USDT: new Decimal(100_000), BTC: new Decimal(1) },
  });
  const rows: BenchRow[] = [];
  const windows: [string, number, number][] = [['1 hour window (60 candles)', first + 600, first + 600 + 3600], ['whole sample (~4000 candles)', first + 600, last + 60]];
  await runDrift(spec(windows[0]![1], windows[0]![2]), { log, journal }); // warm: module load, transpile cache
  for (const [name, from, to] of windows) {
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const result = await runDrift(spec(from, to), { log, journal });
    const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const cpu = process.cpuUsage(cpu0);
    const orders = result.strategies.reduce((n, s) => n + s.replayOrders, 0);
    rows.push({ name: `${name}: CPU`, value: Math.round((cpu.user + cpu.system) / 1000), unit: 'ms', note: `${result.candlesRecorded} candles, ${orders} replay orders, wall ${Math.round(wallMs)} ms` });
  }
  return rows;
}
