import { intervalSeconds, type Candle, type Interval } from '../domain/candle';
import { Decimal } from '../domain/decimal';
import { BacktestInputError } from '../domain/errors';
import type { FillModel } from '../domain/fill-model';
import type { RiskSection } from '../config/risk-limits';
import type { ExchangeClient } from '../exchange/exchange-client';
import { buildEquityCurve, type EquityPoint } from '../backtest/report';
import { runBacktest, strategyCacheKey, type StrategyCache } from '../backtest/run-backtest';
import { findStrategy, loadStrategyFile } from '../strategy/strategy-loader';
import { strategyVersion } from '../strategy/strategy-version';
import type { DeploymentLog, RecordedCandle, RecordedDecision } from '../store/deployment-log-port';
import type { OrderRecord, OrderStore } from '../store/order-store-port';
import { classifier } from './classify-difference';
import { versionChangeOf } from './version-change';
import { compareOutcomes } from './compare-outcomes';
import { downtimeWindows, runAliveAt, type DowntimeWindow } from './downtime';
import { DRIFT_CAUSES, type DriftCause, type DriftDifference, type IntentOutcome } from './drift-types';
import { correctedCandles, type CorrectedCandle } from './data-drift';
import { flatAnchor, netAfter } from './flat-anchor';
import { FINAL_STATUSES } from '../domain/order-state';
import { liveFills, liveOutcomes, marketMsOf, replayOutcomes, wallToMarket } from './outcomes';

/** One deployed strategy as the daemon's config enables it. */
export interface DeployedStrategy {
  readonly name: string;
  readonly markets?: readonly string[] | undefined;
  readonly interval?: Interval | undefined;
  readonly params?: Readonly<Record<string, unknown>> | undefined;
  /** Its module file (a guest loads that file alone: it may not list the folder); else found by name in the folder. */
  readonly file?: string | undefined;
}

export interface DriftSpec {
  /** Unix seconds, market time; from inclusive, to exclusive (candle open times). */
  readonly from: number;
  readonly to: number;
  readonly strategies: readonly DeployedStrategy[];
  readonly strategiesDir: string;
  readonly risk: RiskSection;
  readonly fillModel?: FillModel | undefined;
  /** Starting balances; default the deployment's snapshot at `from`. */
  readonly balances?: Readonly<Record<string, Decimal>> | undefined;
  /** The venue's kline history, for the data-drift check; none = not checked. */
  readonly venue?: Pick<ExchangeClient, 'fetchCandles'> | undefined;
  /** The data-drift check already made (by a process that may ask the venue), instead of `venue`. */
  readonly corrected?: readonly CorrectedCandle[] | undefined;
}

export interface DriftSources {
  readonly log: DeploymentLog;
  readonly journal: Pick<OrderStore, 'listByStrategy'>;
}

export interface StrategyDrift {
  readonly strategy: string;
  readonly interval: Interval;
  readonly markets: readonly string[];
  /** The module's version the replay ran (strategy-version.ts). */
  readonly version: string;
  readonly params: unknown;
  /** Versions the journal's orders in the window were placed by; a replay of another version cannot explain them. */
  readonly liveVersions: readonly string[];
  readonly versionMatches: boolean;
  /** Where the replay's parameters came from: the journal's orders (what ran), or the config when no order has them. */
  readonly paramsFrom: 'journal' | 'config';
  /** Where the replay began (Unix s): the last moment at or before `from` the strategy was flat with nothing open, else `from`. */
  readonly replayFrom: number;
  readonly liveOrders: number;
  readonly replayOrders: number;
  readonly matched: number;
  readonly differences: readonly DriftDifference[];
  readonly startBalances: Readonly<Record<string, Decimal>>;
  readonly liveEquity: readonly EquityPoint[];
  readonly replayEquity: readonly EquityPoint[];
  /** Final equity, live minus replay, in the quote currency. */
  readonly pnlDifference: Decimal;
  readonly quoteCurrency: string;
}

export interface DriftResult {
  readonly from: number;
  /** The window's asked start when the records begin later (the result covers from `from`). */
  readonly askedFrom?: number | undefined;
  readonly to: number;
  readonly downtime: readonly DowntimeWindow[];
  readonly strategies: readonly StrategyDrift[];
  readonly counts: { readonly matched: number; readonly onlyLive: Record<DriftCause, number>; readonly onlyReplay: Record<DriftCause, number>; readonly different: Record<DriftCause, number> };
  readonly unexplained: number;
  readonly candlesRecorded: number;
  /** null when the venue's history was not checked. */
  readonly corrected: readonly CorrectedCandle[] | null;
}

/** The journal scan of one strategy (the replay's inputs read no more). */
export const JOURNAL_SCAN = 100_000;
/** How far before `from` the replay may start to find a moment the strategy was flat. */
export const ANCHOR_LOOKBACK_CANDLES = 1000;

/**
 * The drift check: replays the candles the deployment recorded through the backtester (the same
 * order pipeline) from the deployment's balances at `from`, then compares it with the journal intent
 * by intent and gives every difference a cause (docs/drift.md).
 */
export async function runDrift(spec: DriftSpec, src: DriftSources): Promise<DriftResult> {
  if (!(spec.to > spec.from)) throw new BacktestInputError('--to must be after --from', { field: 'to' });
  const runs = await src.log.runs(spec.from * 1000, spec.to * 1000);
  const downtime = downtimeWindows(runs, spec.from * 1000, spec.to * 1000);
  const decisions = indexDecisions(await src.log.decisions(spec.from, spec.to));
  const liveVersions = await src.log.versions(spec.to * 1000);
  const cache: StrategyCache = new Map();
  const strategies: StrategyDrift[] = [];
  const corrected: CorrectedCandle[] = [];
  let candlesRecorded = 0;
  for (const configured of spec.strategies) {
    // What the deployment really ran: the journal's parameters win over today's config.
    const all = await src.journal.listByStrategy(configured.name, JOURNAL_SCAN);
    const records = all.filter((r) => r.candleTime >= spec.from && r.candleTime < spec.to);
    const identity = journalIdentity(records);
    const deployed = identity.params === undefined ? configured : { ...configured, params: identity.params };
    // The module's own markets unless the config names some, as the daemon resolves them.
    const strategyConfig = { markets: deployed.markets, ...(deployed.params === undefined ? {} : { params: deployed.params }) };
    const found = deployed.file === undefined ? findStrategy(spec.strategiesDir, deployed.name, strategyConfig) : loadStrategyFile(deployed.file, deployed.name, strategyConfig);
    cache.set(strategyCacheKey(spec.strategiesDir, deployed.name), found); // the replay runs the module loaded here
    const s = { ...found.strategy, interval: deployed.interval ?? found.strategy.interval };
    const markets = s.markets;
    const step = intervalSeconds(s.interval);
    const lookback = spec.from - ANCHOR_LOOKBACK_CANDLES * step;
    const runsBack = await src.log.runs(lookback * 1000, spec.to * 1000);
    const toMarketBack = wallToMarket(runsBack);
    // The live guest has seen every candle since its run began (indicators such as an RSI or an EMA
    // carry all of it): the replay warms up on the same stretch, from the warm-up of the run alive at `from`.
    const alive = runAliveAt(runs, spec.from * 1000);
    const runStart = alive === undefined ? spec.from : Math.floor(alive.startedMarketMs / 1000);
    const warmup = (s.warmup + 1) * step;
    const recorded = new Map<string, RecordedCandle[]>();
    for (const market of markets) recorded.set(market, await src.log.candles(market, s.interval, Math.min(lookback, runStart) - warmup, spec.to));
    const inWindow = (m: string): RecordedCandle[] => (recorded.get(m) ?? []).filter((c) => c.time >= spec.from);
    const empty = markets.find((m) => inWindow(m).length === 0);
    if (empty !== undefined) throw new BacktestInputError(`${s.name}: no candles of ${empty} ${s.interval} recorded between ${spec.from} and ${spec.to}`, { field: 'from', market: empty });
    // The replay starts where the deployment's real state is balances alone: the last moment, at or
    // before `from`, the strategy held no position and had nothing open (flat-anchor.ts). Differences
    // before `from` only give causes to the ones inside the window; they are not reported.
    const earliest = Math.max(...markets.map((m) => recorded.get(m)?.[0]?.time ?? Infinity));
    // Best is the start of the run alive at `from` when the strategy was flat then: the live guest's
    // own memory began there too. Otherwise the last flat moment, whose memory the replay only warms.
    const ended = (r: OrderRecord): number | undefined => endedAt(r, toMarketBack);
    const firstTraded = alive === undefined ? undefined : firstLiveCandle(markets.map((m) => recorded.get(m) ?? []), alive.startedMarketMs, step, spec.from);
    const anchor = spec.balances !== undefined
      ? spec.from
      : ((firstTraded === undefined ? undefined : flatAnchor(all, firstTraded, firstTraded, ended))
        ?? flatAnchor(all, spec.from, Math.max(lookback, earliest + warmup), ended) ?? spec.from);
    const warmFrom = Math.min(anchor, runStart) - warmup;
    candlesRecorded += markets.reduce((n, m) => n + inWindow(m).length, 0);
    const fixes = spec.corrected !== undefined
      ? spec.corrected.filter((f) => markets.includes(f.market) && f.interval === s.interval)
      : spec.venue === undefined ? [] : await correctedCandles(spec.venue, markets, s.interval, spec.from, spec.to, recorded);
    corrected.push(...fixes);
    const quoteCurrency = quoteOf(markets);
    // One account, several strategies: each replay gets the account's balances of its own currencies.
    const currencies = new Set([quoteCurrency, ...markets.map((m) => m.split('_')[0] ?? '')]);
    const start = spec.balances === undefined ? await startBalances(src.log, anchor) : { trading: spec.balances, collateral: {} };
    const balances = Object.fromEntries(Object.entries(start.trading).filter(([cur]) => currencies.has(cur)));
    const outcome = await runBacktest(
      { strategy: s.name, strategiesDir: spec.strategiesDir, params: deployed.params, interval: s.interval, balances, risk: spec.risk, fillModel: spec.fillModel, collateralBalances: start.collateral },
      { markets: markets.map((m) => ({ market: m, candles: (recorded.get(m) ?? []).filter((c) => c.time >= warmFrom).map(toCandle) })), dataInterval: s.interval, from: anchor, to: spec.to, tradeFrom: anchor },
      cache,
    );
    const version = strategyVersion(found.sources);
    // A fill after the window is outside it: the replay ends at `to` and cannot have it either.
    const sinceAnchor = all.filter((r) => r.candleTime >= anchor && r.candleTime < spec.to && markets.includes(r.market));
    const live = liveOutcomes(sinceAnchor, toMarketBack).map((o) => (o.firstFillSec !== undefined && o.firstFillSec >= spec.to ? unfilled(o) : o));
    // The replay trades from the candle that opens at the anchor: the one whose balances were recorded there.
    const replay = replayOutcomes(outcome.replay.orders, outcome.replay.fills).filter((o) => o.candleTime >= anchor && o.candleTime < spec.to);
    const seen = anchor === spec.from ? { downtime, decisions } : { downtime: downtimeWindows(runsBack, anchor * 1000, spec.to * 1000), decisions: indexDecisions(await src.log.decisions(anchor, spec.to)) };
    const fixed = new Set(fixes.map((f) => `${f.market}|${f.time}`));
    const comparison = compareOutcomes(live, replay, () => s.interval, classifier({
      interval: () => s.interval,
      recordedCandle: (m, _i, t) => (recorded.get(m) ?? []).find((c) => c.time === t),
      downtime: seen.downtime,
      decisions: (st, m, t) => seen.decisions.get(`${st}|${m}|${t}`) ?? [],
      corrected: (m, _i, t) => fixed.has(`${m}|${t}`),
      carried: (_st, m) => carriedState(all.filter((r) => r.market === m && r.candleTime < anchor), anchor, toMarketBack),
      versionChange: versionChangeOf(version, identity.paramsText, liveVersions.filter((v) => v.strategy === s.name), step),
      replayDenied: (st, m, t) => outcome.replay.orders.find((o) => o.strategy === st && o.market === m && o.candleTime === t && (o.outcome === 'denied' || o.outcome === 'rejected'))?.rule,
    }), spec.from);
    const candles = Object.fromEntries(markets.map((m) => [m, inWindow(m).map(toCandle)]));
    // The curve values each candle at its open: a fill inside a candle counts from that candle.
    const first = Math.min(...markets.map((m) => inWindow(m)[0]!.time));
    const lastOpen = Math.max(...markets.map((m) => inWindow(m).at(-1)!.time));
    // Fills before the window (from the anchor on) count from its first candle: the curves start from the state at `from`.
    const clamp = <F extends { time: number }>(f: F): F => ({ ...f, time: Math.min(Math.max(f.time, first), lastOpen) });
    const liveEquity = buildEquityCurve(liveFills(live).map(clamp), candles, balances, quoteCurrency, s.interval);
    const replayEquity = buildEquityCurve(outcome.replay.fills.map(clamp), candles, balances, quoteCurrency, s.interval);
    const last = (curve: readonly EquityPoint[]): Decimal => curve[curve.length - 1]?.equity ?? new Decimal(0);
    strategies.push({
      strategy: s.name, interval: s.interval, markets, version, params: s.params,
      liveVersions: identity.versions, versionMatches: identity.versions.every((v) => v === version), paramsFrom: identity.params === undefined ? 'config' : 'journal',
      replayFrom: anchor,
      liveOrders: live.filter((o) => o.candleTime >= spec.from).length, replayOrders: replay.filter((o) => o.candleTime >= spec.from).length, matched: comparison.matched, differences: comparison.differences,
      startBalances: balances, liveEquity, replayEquity, pnlDifference: last(liveEquity).minus(last(replayEquity)), quoteCurrency,
    });
  }
  const counts = tally(strategies);
  return { from: spec.from, to: spec.to, downtime, strategies, counts, unexplained: counts.onlyLive.unexplained + counts.onlyReplay.unexplained + counts.different.unexplained, candlesRecorded, corrected: spec.venue === undefined && spec.corrected === undefined ? null : corrected };
}

/** The versions and the (newest) parameters the journal's records carry; records from before they were journaled have none. */
function journalIdentity(records: readonly OrderRecord[]): { versions: string[]; params: Record<string, unknown> | undefined; paramsText: string | undefined } {
  const versions = [...new Set(records.flatMap((r) => (r.strategyVersion === undefined ? [] : [r.strategyVersion])))];
  const newest = [...records].sort((a, b) => b.candleTime - a.candleTime).find((r) => r.strategyParams !== undefined);
  const parsed: unknown = newest?.strategyParams === undefined ? undefined : JSON.parse(newest.strategyParams);
  const params = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  return { versions, params, paramsText: params === undefined ? undefined : newest?.strategyParams };
}

/**
 * What the strategy carried into the window on a market that the replay does not recreate: a net
 * position from the orders before it, or an order placed before it that was still open at `from`.
 */
function carriedState(before: readonly OrderRecord[], from: number, toMarket: (atMs: number) => number | undefined): string | undefined {
  const net = before.reduce(netAfter, new Decimal(0));
  const open = before.filter((r) => {
    const endedMs = endedAt(r, toMarket);
    return !FINAL_STATUSES.has(r.status) || (endedMs !== undefined && endedMs >= from * 1000);
  });
  const parts = [...(net.isZero() ? [] : [`a position of ${net.toString()}`]), ...(open.length === 0 ? [] : [`${open.length} order(s) open at the window's start`])];
  return parts.length === 0 ? undefined : parts.join(' and ');
}

/** The first candle a run handed its strategies live (closed after the run started), at or before `from`. */
function firstLiveCandle(perMarket: readonly (readonly RecordedCandle[])[], startedMarketMs: number, step: number, from: number): number | undefined {
  let first: number | undefined;
  for (const candles of perMarket) {
    const c = candles.find((x) => x.source === 'live' && (x.time + step) * 1000 >= startedMarketMs);
    if (c !== undefined && c.time <= from && (first === undefined || c.time < first)) first = c.time;
  }
  return first;
}

/** When a finished order finished, on the market clock: its last transition. */
function endedAt(r: OrderRecord, toMarket: (atMs: number) => number | undefined): number | undefined {
  const last = r.history[r.history.length - 1];
  return last === undefined ? undefined : marketMsOf(last, toMarket);
}

function unfilled(o: IntentOutcome): IntentOutcome {
  const zero = new Decimal(0);
  return { ...o, filledAmount: zero, filledMoney: zero, fee: zero, firstFillSec: undefined };
}

function toCandle(c: RecordedCandle): Candle {
  return { time: c.time, open: new Decimal(c.open), high: new Decimal(c.high), low: new Decimal(c.low), close: new Decimal(c.close), volume: new Decimal(c.volume), volumeMoney: new Decimal(c.volumeMoney) };
}

function quoteOf(markets: readonly string[]): string {
  const quotes = [...new Set(markets.map((m) => m.split('_')[1] ?? ''))];
  if (quotes.length !== 1 || quotes[0] === '') throw new BacktestInputError(`all markets of a strategy must share one quote currency, got ${markets.join(', ')}`, { field: 'strategy' });
  return quotes[0]!;
}

/** Available plus frozen: the replay starts without the orders open at `from`, so their funds are free in it. The collateral account as it held. */
async function startBalances(log: DeploymentLog, from: number): Promise<{ trading: Record<string, Decimal>; collateral: Record<string, Decimal> }> {
  const snap = await log.balancesAt(from * 1000);
  if (snap === undefined) throw new BacktestInputError(`no balance snapshot recorded at or before ${new Date(from * 1000).toISOString()}: pass --balance CUR=AMOUNT`, { field: 'balance' });
  return {
    trading: Object.fromEntries(Object.entries(snap.balances).map(([cur, b]) => [cur, new Decimal(b.available).plus(b.freeze)])),
    collateral: Object.fromEntries(Object.entries(snap.collateral ?? {}).map(([cur, v]) => [cur, new Decimal(v)])),
  };
}

function indexDecisions(list: readonly RecordedDecision[]): Map<string, RecordedDecision[]> {
  const out = new Map<string, RecordedDecision[]>();
  for (const d of list) {
    const key = `${d.strategy}|${d.market}|${d.candleTime}`;
    out.set(key, [...(out.get(key) ?? []), d]);
  }
  return out;
}

function zero(): Record<DriftCause, number> {
  return Object.fromEntries(DRIFT_CAUSES.map((c) => [c, 0])) as Record<DriftCause, number>;
}

export function tally(strategies: readonly StrategyDrift[]): DriftResult['counts'] {
  const counts = { matched: 0, onlyLive: zero(), onlyReplay: zero(), different: zero() };
  for (const s of strategies) {
    counts.matched += s.matched;
    for (const d of s.differences) {
      const bucket = d.kind === 'only_live' ? counts.onlyLive : d.kind === 'only_replay' ? counts.onlyReplay : counts.different;
      bucket[d.cause]++;
    }
  }
  return counts;
}
