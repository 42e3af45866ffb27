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
import type { DriftResult, DriftSources, DriftSpec } from '../drift/run-drift';
import { runSpan, type RunSpan } from '../drift/run-span';
import { runDriftInGuests, type GuestDrift } from '../drift/drift-in-guests';
import { driftSpecOf } from '../drift/drift-spec';
import { describeConfiguredStrategies } from '../app/strategy-wiring';
import { guestIsolationOf } from '../app/guest-isolation';
import { readRecordsSnapshot } from '../drift/records-snapshot';
import { RedisDeploymentLog } from '../store/deployment-log';
import { RedisOrderStore } from '../store/order-store';
import { defaultConfigFile, formatError } from './cli-basics';

interface DriftCliOptions {
  config?: string;
  from?: string;
  to?: string;
  run?: string;
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
 * `tradebot drift [--run last|all|ID | --from T --to T] [--strategy S] [--out DIR]`: the deployment's recorded candles
 * replayed through the backtester from its real balances at `from`, compared with its journal order by
 * order, every difference given a cause (docs/drift.md). Exit 0, EXIT_DRIFT when unexplained
 * differences exceed the threshold, 1 on an error.
 */
export function registerDriftCommand(program: Command): void {
  program
    .command('drift')
    .description('compare what the deployment did with its own backtest over a window, order by order')
    .option('-c, --config <file>', 'the daemon\'s config file; default $TRADEBOT_CONFIG or config/paper.yaml')
    .option('--run <which>', 'the window of a recorded daemon run: last (the default without --from/--to), all (every run kept), or a run id')
    .option('--from <time>', 'window start, market time (Unix seconds or ISO date, UTC); with --to, instead of --run')
    .option('--to <time>', 'window end, exclusive')
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
        const { result, cpuSeconds, span } = await driftFromConfig(config, opts, process.env);
        // The window's origin first (stderr: --json keeps stdout one JSON line).
        for (const line of span?.description ?? []) process.stderr.write(`${line}\n`);
        if (opts.out !== undefined) {
          const written = await writeDriftReport(opts.out, result, threshold);
          process.stderr.write(`report: ${written.html}\n        ${written.json}\n`);
        }
        // The cost of the check itself (the daemon's periodic check exports it).
        const cpu = process.cpuUsage();
        const cost = { cpuSeconds: cpuSeconds + (cpu.user + cpu.system) / 1e6, wallSeconds: (Date.now() - startedMs) / 1000 };
        const runs = span === undefined ? {} : { runs: span.runs };
        process.stdout.write(opts.json === true ? `${JSON.stringify({ ...driftJson(result, threshold), ...runs, cost })}\n` : summary(result, threshold));
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
export async function driftFromConfig(config: FrozenConfig, opts: Pick<DriftCliOptions, 'from' | 'to' | 'run' | 'strategy' | 'balance' | 'venueCheck' | 'records'>, env: NodeJS.ProcessEnv): Promise<GuestDrift & { span?: RunSpan }> {
  const times = windowOf(opts);
  const balances = opts.balance.length > 0 ? parseBalances(opts.balance) : undefined;
  const described = await describeConfiguredStrategies(config, process.cwd());
  // An operator's check may span weeks of candles: more heap than the daemon's periodic window needs.
  const guests = { strategies: described.strategies, isolation: guestIsolationOf(config), heapMb: 1024 };
  const check = async (src: DriftSources, venue?: DriftSpec['venue']): Promise<GuestDrift & { span?: RunSpan }> => {
    const window = 'run' in times ? runSpan(await src.log.runs(0, Number.MAX_SAFE_INTEGER), times.run) : times;
    const spec = { ...driftSpecOf(config, process.cwd(), window.from, window.to, opts.strategy), balances, venue };
    return { ...(await runDriftInGuests(spec, src, guests)), ...('runs' in window ? { span: window } : {}) };
  };
  if (opts.records !== undefined) {
    if (opts.venueCheck === true) throw new BacktestInputError('--venue-check cannot be combined with --records (a snapshot of a daemon without a venue to ask)', { field: 'records' });
    return check(await readRecordsSnapshot(opts.records));
  }
  const store = await openAccountStore(config, env, 'tradebot drift');
  try {
    const venueUrl = config.mode === 'paper' ? config.paper?.exchangeUrl : config.exchange.baseUrl;
    if (opts.venueCheck === true && venueUrl === undefined) throw new BacktestInputError('--venue-check needs a venue: paper mode against the embedded simulator has no history once it stopped', { field: 'venue-check' });
    const clock = new SystemClock();
    const venue = opts.venueCheck === true ? new HttpExchangeClient({
      baseUrl: venueUrl!, primaryRegion: 'global', nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: config.exchange.timeoutMs, dialect: config.exchange.dialect,
    }) : undefined;
    return await check({ log: new RedisDeploymentLog(store.redis, store.keys), journal: new RedisOrderStore({ redis: store.redis, keys: store.keys }) }, venue);
  } finally {
    await store.close();
  }
}

/** --from/--to together, or a run (--run, default the last one). */
function windowOf(opts: Pick<DriftCliOptions, 'from' | 'to' | 'run'>): { run: string } | { from: number; to: number } {
  if (opts.from === undefined && opts.to === undefined) return { run: opts.run ?? 'last' };
  if (opts.run !== undefined) throw new BacktestInputError('--run cannot be combined with --from/--to: it sets the window itself', { field: 'run' });
  if (opts.from === undefined || opts.to === undefined) throw new BacktestInputError(`${opts.from === undefined ? '--to needs --from' : '--from needs --to'} (or neither: the window of the last run)`, { field: opts.from === undefined ? 'from' : 'to' });
  return { from: parseTime(opts.from, '--from'), to: parseTime(opts.to, '--to') };
}

function summary(r: DriftResult, threshold: number): string {
  const c = r.counts;
  const line = (name: string, counts: Record<string, number>): string => `${name}: ${Object.entries(counts).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`;
  return [
    `drift ${new Date(r.from * 1000).toISOString()} .. ${new Date(r.to * 1000).toISOString()}: ${r.candlesRecorded} candles recorded, ${c.matched} orders matched`,
    ...(r.askedFrom === undefined ? [] : [`(asked from ${new Date(r.askedFrom * 1000).toISOString()}: the deployment's records begin later)`]),
    line('only live', c.onlyLive), line('only replay', c.onlyReplay), line('different', c.different),
    ...r.strategies.map((s) => `${s.strategy} ${s.version} (params from the ${s.paramsFrom}): PnL live - replay ${s.pnlDifference.toFixed(8)} ${s.quoteCurrency}${s.versionMatches ? '' : `; WARNING: live ran version ${s.liveVersions.join(', ')}`}`),
    `downtime windows: ${r.downtime.length}; corrected candles: ${r.corrected === null ? 'not checked' : r.corrected.length}`,
    `unexplained: ${r.unexplained} (threshold ${threshold}) ${r.unexplained > threshold ? 'DRIFT' : 'ok'}`,
    '',
  ].join('\n');
}
