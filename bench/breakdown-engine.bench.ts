import { Session } from 'node:inspector';
import { loadavg } from 'node:os';
import type { Candle } from '../src/domain/candle';
import type { StrategyCache } from '../src/backtest/run-backtest';
import type { BenchRow } from './bench-types';
import { backtestRun, buildYear } from './backtest.bench';
import { innermost, isGc, onStack, stagesOf, type CpuProfile, type StageRule } from './profile-stages';

/**
 * Where the engine's time goes with many orders (issue #23: "show where each remaining millisecond
 * goes"): the year of 1m candles through sma-cross 10/30 (21 k intents), as in backtest.bench.ts,
 * under V8's sampling CPU profiler (node:inspector, 100 us samples). Every sample is charged to one
 * stage of the pipeline: the innermost frame on its stack that belongs to a stage's files (decimal.js
 * and Node internals are charged to the stage that called them), the engine's work inside a data
 * candle to "engine: candle walk", GC to "garbage collector". The same for the signals-only run
 * (same candles and signals, no order): the difference between the two is what the orders cost.
 * Stage times are scaled from the profiled run to the unprofiled one (the profiler slows every stage
 * alike, ~10 %), and given per run and per intent.
 */
const SAMPLE_US = 100;

/** Stages by the files that do their work: the innermost frame from one of them wins (a file names one job). */
const FILE_STAGES: readonly (readonly [string, RegExp])[] = [
  ['strategy: closes as numbers (as the floor)', /src\/strategy\/candle-series\.js$/],
  ['strategy: onCandle (signals, order arithmetic)', /strategies\/[^/]+\.ts$/],
  ['strategy host: context, intent checks', /src\/strategy\/(strategy-host|intent-validation|strategy-context|indicators)\.js$/],
  ['order feedback + portfolio', /src\/(execution\/order-feedback-recorder|strategy\/order-feedback|portfolio\/[^/]+)\.js$/],
  ['journal: in-memory store, record checks', /src\/store\/.+\.js$/],
  ['risk gate + order preparation', /src\/(risk\/[^/]+|execution\/(risk-gate|prepare-order|rounding)|core\/client-order-id)\.js$/],
  ['in-process transport (handler input, reports)', /src\/simulator\/(in-process-exchange|engine-reports|server\/[^/]+)\.js$/],
  ['engine: place, cancel, queries', /src\/simulator\/engine\/.+\.js$/],
  ['settlement lookups (moved orders)', /src\/execution\/(settler|reconciler|order-locator|candle-settlement)\.js$/],
  ['journal update from reports', /src\/execution\/(journal-updater|report-event)\.js$/],
  ['open-order view (ctx.openOrders)', /src\/execution\/open-order-book\.js$/],
  ['order log (report)', /src\/backtest\/replay\/order-log\.js$/],
  ['executor: submit/cancel flow', /src\/execution\/[^/]+\.js$/],
  ['replay loop, aggregation', /src\/backtest\/replay\/[^/]+\.js$/],
];
const ANY_STAGE_FILE = new RegExp(FILE_STAGES.map(([, re]) => re.source).join('|'));
const REPLAY_FILE = /backtest-replay\.js$/;

const RULES: readonly StageRule[] = [
  ['garbage collector', isGc],
  // Whatever the engine does inside a data candle is the walk, including the fills' bookkeeping it triggers synchronously.
  ['engine: candle walk (triggers, fills)', (stack) => onStack(stack, 'applyCandle', REPLAY_FILE)],
  ...FILE_STAGES.map(([name, re]): StageRule => [name, (stack) => re.test(innermost(stack, ANY_STAGE_FILE)?.url ?? '')]),
  ['promise plumbing (microtasks)', (stack) => onStack(stack, 'runMicrotasks') || onStack(stack, 'processTicksAndRejections')],
];

function post<T>(session: Session, method: string, params?: Record<string, unknown>): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T))));
}

async function breakdown(session: Session, candles: readonly Candle[], params: Record<string, unknown>, cache: StrategyCache): Promise<{
  stages: Map<string, number>; profiledUs: number; seconds: number; orders: number; fills: number;
}> {
  await backtestRun(candles, params, cache); // warm: transpile cache, JIT
  const plain = await backtestRun(candles, params, cache);
  await post(session, 'Profiler.start');
  await backtestRun(candles, params, cache);
  const { profile } = await post<{ profile: CpuProfile }>(session, 'Profiler.stop');
  const stages = stagesOf(profile, RULES, 'other');
  let profiledUs = 0;
  for (const us of stages.values()) profiledUs += us;
  return { stages, profiledUs, ...plain };
}

export async function run(): Promise<BenchRow[]> {
  const { candles } = await buildYear();
  const cache: StrategyCache = new Map();
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: SAMPLE_US });
  const load = loadavg()[0] as number;
  const many = await breakdown(session, candles, {}, cache);
  const quiet = await breakdown(session, candles, { quoteAmount: '0' }, cache);
  session.disconnect();
  const rows: BenchRow[] = [];
  const scale = (r: typeof many, us: number): number => (us / r.profiledUs) * r.seconds * 1000; // ms of the unprofiled run
  rows.push({ name: 'sma-cross 10/30, year of 1m: end to end (unprofiled)', value: Math.round(many.seconds * 1000), unit: 'ms', note: `${many.orders} intents, ${many.fills} fills; load ${load.toFixed(2)} at start` });
  rows.push({ name: 'the same signals, no orders (unprofiled)', value: Math.round(quiet.seconds * 1000), unit: 'ms' });
  rows.push({ name: 'what the orders cost, per intent', value: Number((((many.seconds - quiet.seconds) * 1e6) / many.orders).toFixed(1)), unit: 'us' });
  const names = [...new Set([...many.stages.keys(), ...quiet.stages.keys()])]
    .sort((a, b) => scale(many, many.stages.get(b) ?? 0) - scale(many, many.stages.get(a) ?? 0));
  for (const name of names) {
    const withOrders = scale(many, many.stages.get(name) ?? 0);
    const without = scale(quiet, quiet.stages.get(name) ?? 0);
    rows.push({
      name: `stage: ${name}`, value: Number(withOrders.toFixed(1)), unit: 'ms',
      note: `${((withOrders / (many.seconds * 1000)) * 100).toFixed(1)} %; no orders ${without.toFixed(1)} ms; difference per intent ${(((withOrders - without) * 1000) / many.orders).toFixed(2)} us`,
    });
  }
  return rows;
}
