import { Session } from 'node:inspector';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import type { Candle } from '../src/domain/candle';
import { Decimal } from '../src/domain/decimal';
import { BacktestReplay } from '../src/backtest/replay/backtest-replay';
import { loadNamedStrategy, type StrategyCache } from '../src/backtest/run-backtest';
import { simMarketInfo } from '../src/simulator/sim-markets';
import type { BenchRow } from './bench-types';
import { buildYear } from './backtest.bench';

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
const ROOT = path.resolve(__dirname, __dirname.includes(`${path.sep}dist${path.sep}`) ? '../..' : '..');
const SAMPLE_US = 100;

/** Stages by the files that do their work, innermost first wins (a file names one job). */
const STAGES: readonly (readonly [string, RegExp])[] = [
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
const CANDLE_WALK = 'engine: candle walk (triggers, fills)';
const GC = 'garbage collector';
const ASYNC = 'promise plumbing (microtasks)';
const OTHER = 'other';

interface ProfileNode { id: number; callFrame: { functionName: string; url: string }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

function post<T>(session: Session, method: string, params?: Record<string, unknown>): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T))));
}

/** Microseconds per stage of one profile. */
export function stagesOf(profile: Profile): Map<string, number> {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const stageOfNode = new Map<number, string>();
  const classify = (id: number): string => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    let stage: string | undefined;
    let walked = false;
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = (byId.get(cur) as ProfileNode).callFrame;
      if (f.functionName === '(garbage collector)') { stage = GC; break; }
      if (f.functionName === 'applyCandle' && /backtest-replay\.js$/.test(f.url)) { walked = true; break; }
      if (stage === undefined) stage = STAGES.find(([, re]) => re.test(f.url))?.[0];
    }
    // Whatever the engine does inside a data candle is the walk, including the fills' journal work it triggers synchronously.
    const result = walked ? CANDLE_WALK : stage ?? (isAsync(byId, parent, id) ? ASYNC : OTHER);
    stageOfNode.set(id, result);
    return result;
  };
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    // The first delta runs from Profiler.start to the first sample, inside the inspector's own call.
    if (i === 0) return;
    const stage = classify(id);
    out.set(stage, (out.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return out;
}

function isAsync(byId: Map<number, ProfileNode>, parent: Map<number, number>, id: number): boolean {
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const name = (byId.get(cur) as ProfileNode).callFrame.functionName;
    if (name === 'runMicrotasks' || name === 'processTicksAndRejections') return true;
  }
  return false;
}

async function replayOnce(candles: readonly Candle[], params: Record<string, unknown>, cache: StrategyCache): Promise<{ seconds: number; intents: number; fills: number }> {
  const strategy = loadNamedStrategy(
    { strategy: 'sma-cross', strategiesDir: path.join(ROOT, 'strategies'), interval: '1m', params, balances: {} },
    ['BTC_USDT'], cache,
  );
  const replay = new BacktestReplay({
    strategies: [strategy], markets: [{ info: simMarketInfo('BTC_USDT'), candles }], dataInterval: '1m',
    balances: { USDT: new Decimal(10_000) },
  });
  const start = process.hrtime.bigint();
  const result = await replay.run();
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, intents: result.orders.length, fills: result.fills.length };
}

async function breakdown(session: Session, candles: readonly Candle[], params: Record<string, unknown>, cache: StrategyCache): Promise<{
  stages: Map<string, number>; profiledUs: number; seconds: number; intents: number; fills: number;
}> {
  await replayOnce(candles, params, cache); // warm: transpile cache, JIT
  const plain = await replayOnce(candles, params, cache);
  await post(session, 'Profiler.start');
  await replayOnce(candles, params, cache);
  const { profile } = await post<{ profile: Profile }>(session, 'Profiler.stop');
  const stages = stagesOf(profile);
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
  const orders = await breakdown(session, candles, {}, cache);
  const quiet = await breakdown(session, candles, { quoteAmount: '0' }, cache);
  session.disconnect();
  const rows: BenchRow[] = [];
  const scale = (r: typeof orders, us: number): number => (us / r.profiledUs) * r.seconds * 1000; // ms of the unprofiled run
  rows.push({ name: 'sma-cross 10/30, year of 1m: end to end (unprofiled)', value: Math.round(orders.seconds * 1000), unit: 'ms', note: `${orders.intents} intents, ${orders.fills} fills; load ${load.toFixed(2)} at start` });
  rows.push({ name: 'the same signals, no orders (unprofiled)', value: Math.round(quiet.seconds * 1000), unit: 'ms' });
  rows.push({ name: 'what the orders cost, per intent', value: Number((((orders.seconds - quiet.seconds) * 1e6) / orders.intents).toFixed(1)), unit: 'us' });
  const names = [...new Set([...orders.stages.keys(), ...quiet.stages.keys()])]
    .sort((a, b) => scale(orders, orders.stages.get(b) ?? 0) - scale(orders, orders.stages.get(a) ?? 0));
  for (const name of names) {
    const withOrders = scale(orders, orders.stages.get(name) ?? 0);
    const without = scale(quiet, quiet.stages.get(name) ?? 0);
    rows.push({
      name: `stage: ${name}`, value: Number(withOrders.toFixed(1)), unit: 'ms',
      note: `${((withOrders / (orders.seconds * 1000)) * 100).toFixed(1)} %; no orders ${without.toFixed(1)} ms; difference per intent ${(((withOrders - without) * 1000) / orders.intents).toFixed(2)} us`,
    });
  }
  return rows;
}
