import type { Command } from 'commander';
import { openAccountStore } from '../app/account-store';
import { loadConfig, type FrozenConfig } from '../config/load';
import { SystemClock } from '../core/clock';
import { BacktestInputError } from '../domain/errors';
import { HttpExchangeClient } from '../exchange/http/client';
import { InMemoryNonceSource } from '../exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../limiter/in-memory-limiter';
import { parseBalances, parseTime } from '../backtest/options';
import { writeDriftReport, driftJson } from '../drift/drift-report';
import type { DriftResult } from '../drift/run-drift';
import { runDriftInGuests, type GuestDrift } from '../drift/drift-in-guests';
import { driftSpecOf } from '../drift/drift-spec';
import { describeConfiguredStrategies } from '../app/strategy-wiring';
import { guestIsolationOf } from '../app/guest-isolation';
import { readRecordsSnapshot } from '../drift/records-snapshot';
import { RedisDeploymentLog } from '../store/deployment-log';
import { RedisOrderStore } from '../store/order-store';
import { formatError } from './api-command';
import { defaultConfigFile } from './run-command';

interface DriftCliOptions {
  config?: string;
  from: string;
  to: string;
  strategy?: string;
  out?: string;
  balance: string[];
  venueCheck?: boolean;
  maxUnexplained: string;
  json?: boolean;
  records?: string;
}

/** Exit code when the unexplained drift exceeds --max-unexplained (1 stays for errors). */
export const EXIT_DRIFT = 3;

/**
 * `tradebot drift --from T --to T [--strategy S] [--out DIR]`: the deployment's recorded candles
 * replayed through the backtester from its real balances at `from`, compared with its journal order by
 * order, every difference given a cause (docs/drift.md). Exit 0, EXIT_DRIFT when unexplained
 * differences exceed the threshold, 1 on an error.
 */
export function registerDriftCommand(program: Command): void {
  program
    .command('drift')
    .description('compare what the deployment did with its own backtest over a window, order by order')
    .option('-c, --config <file>', 'the daemon\'s config file; default $TRADEBOT_CONFIG or config/paper.yaml')
    .requiredOption('--from <time>', 'window start, market time (Unix seconds or ISO date, UTC)')
    .requiredOption('--to <time>', 'window end, exclusive')
    .option('--strategy <name>', 'only this enabled strategy')
    .option('--out <dir>', 'write drift.json and drift.html there')
    .option('--balance <CUR=AMOUNT>', 'starting balance instead of the recorded snapshot at --from; repeatable', collect, [])
    .option('--venue-check', 'data drift: compare the recorded candles with the venue\'s kline history now')
    .option('--max-unexplained <n>', 'unexplained differences tolerated before exiting non-zero', '0')
    .option('--json', 'print the JSON report on stdout')
    .option('--records <file>', 'read the records from this snapshot instead of Redis (the daemon\'s periodic check without Redis writes one)')
    .allowExcessArguments(false)
    .action(async (opts: DriftCliOptions) => {
      const startedMs = Date.now();
      try {
        const threshold = Number(opts.maxUnexplained);
        if (!Number.isInteger(threshold) || threshold < 0) throw new BacktestInputError('--max-unexplained must be a whole number >= 0', { field: 'max-unexplained' });
        const config = loadConfig(opts.config ?? defaultConfigFile(process.env), process.env);
        const { result, cpuSeconds } = await driftFromConfig(config, opts, process.env);
        if (opts.out !== undefined) {
          const written = await writeDriftReport(opts.out, result, threshold);
          process.stderr.write(`report: ${written.html}\n        ${written.json}\n`);
        }
        // The cost of the check itself (the daemon's periodic check exports it).
        const cpu = process.cpuUsage();
        const cost = { cpuSeconds: cpuSeconds + (cpu.user + cpu.system) / 1e6, wallSeconds: (Date.now() - startedMs) / 1000 };
        process.stdout.write(opts.json === true ? `${JSON.stringify({ ...driftJson(result, threshold), cost })}\n` : summary(result, threshold));
        if (result.unexplained > threshold) process.exitCode = EXIT_DRIFT;
      } catch (err) {
        process.stderr.write(formatError(err));
        process.exitCode = 1;
      }
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * The drift check of a config's deployment: the records from Redis (or a --records snapshot), each
 * strategy replayed in a guest of its own (runDriftInGuests: its code never runs in this process, which
 * may hold the API key for --venue-check), the venue asked here.
 */
export async function driftFromConfig(config: FrozenConfig, opts: Pick<DriftCliOptions, 'from' | 'to' | 'strategy' | 'balance' | 'venueCheck' | 'records'>, env: NodeJS.ProcessEnv): Promise<GuestDrift> {
  const spec = {
    ...driftSpecOf(config, process.cwd(), parseTime(opts.from, '--from'), parseTime(opts.to, '--to'), opts.strategy),
    balances: opts.balance.length > 0 ? parseBalances(opts.balance) : undefined,
  };
  const described = await describeConfiguredStrategies(config, process.cwd());
  // An operator's check may span weeks of candles: more heap than the daemon's periodic window needs.
  const guests = { strategies: described.strategies, isolation: guestIsolationOf(config), heapMb: 1024 };
  if (opts.records !== undefined) {
    if (opts.venueCheck === true) throw new BacktestInputError('--venue-check cannot be combined with --records (a snapshot of a daemon without a venue to ask)', { field: 'records' });
    return runDriftInGuests(spec, await readRecordsSnapshot(opts.records), guests);
  }
  const store = await openAccountStore(config, env, 'tradebot drift');
  try {
    const venueUrl = config.mode === 'paper' ? config.paper?.exchangeUrl : config.exchange.baseUrl;
    if (opts.venueCheck === true && venueUrl === undefined) throw new BacktestInputError('--venue-check needs a venue: paper mode against the embedded simulator has no history once it stopped', { field: 'venue-check' });
    const clock = new SystemClock();
    const venue = opts.venueCheck === true ? new HttpExchangeClient({
      baseUrl: venueUrl!, primaryRegion: 'global', nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: config.exchange.timeoutMs, dialect: config.exchange.dialect,
    }) : undefined;
    return await runDriftInGuests({ ...spec, venue }, { log: new RedisDeploymentLog(store.redis, store.keys), journal: new RedisOrderStore({ redis: store.redis, keys: store.keys }) }, guests);
  } finally {
    await store.close();
  }
}

function summary(r: DriftResult, threshold: number): string {
  const c = r.counts;
  const line = (name: string, counts: Record<string, number>): string => `${name}: ${Object.entries(counts).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`;
  return [
    `drift ${new Date(r.from * 1000).toISOString()} .. ${new Date(r.to * 1000).toISOString()}: ${r.candlesRecorded} candles recorded, ${c.matched} orders matched`,
    line('only live', c.onlyLive), line('only replay', c.onlyReplay), line('different', c.different),
    ...r.strategies.map((s) => `${s.strategy} ${s.version} (params from the ${s.paramsFrom}): PnL live - replay ${s.pnlDifference.toFixed(8)} ${s.quoteCurrency}${s.versionMatches ? '' : `; WARNING: live ran version ${s.liveVersions.join(', ')}`}`),
    `downtime windows: ${r.downtime.length}; corrected candles: ${r.corrected === null ? 'not checked' : r.corrected.length}`,
    `unexplained: ${r.unexplained} (threshold ${threshold}) ${r.unexplained > threshold ? 'DRIFT' : 'ok'}`,
    '',
  ].join('\n');
}
