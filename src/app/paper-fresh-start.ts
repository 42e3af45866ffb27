import type { RedisConnection } from '../store/redis';
import type { Clock } from '../core/clock';
import type { FrozenConfig } from '../config/load';
import { isDeadLocalOwner } from '../execution/guards/dead-owner';
import type { Logger } from '../log/logger';
import type { StoreKeys } from '../store/keys';
import { clearTimeline, surveyTimeline, type TimelineSurvey } from '../store/timeline-keys';

/**
 * A paper run on a Redis that holds an earlier paper run of the same account: start clean when the
 * venue is a new market (another timeline), carry over when it continues the earlier one, and say
 * which in one line. The embedded simulator is new at every start (same first candle, fresh
 * balances, no orders), so the earlier run's journal (same deterministic client order ids), leases,
 * realised PnL and drift records would describe orders this venue never saw. A standalone simulator
 * (`paper.exchangeUrl`) outlives the daemon: its state carries over unless its market clock is now
 * before the earlier run's last market time (the simulator was restarted). Live mode: never touched.
 */

export type PaperVenue = { readonly kind: 'embedded' } | { readonly kind: 'standalone'; readonly marketNowMs: number };

export type FreshStartDecision =
  | { readonly action: 'untouched'; readonly why: 'live' | 'no-redis' }
  | { readonly action: 'nothing-earlier' }
  /** Another daemon may be running on this namespace (it holds unexpired leases): never pulled from under it. */
  | { readonly action: 'shared'; readonly holders: readonly string[] }
  | { readonly action: 'carry'; readonly why: 'same-market' | 'no-market-time' }
  | { readonly action: 'clear'; readonly why: 'embedded' | 'clock-behind'; readonly lastMarketMs?: number };

/**
 * A standalone simulator's clock is read once and extrapolated, so a quick restart may read it a
 * little behind the last heartbeat the earlier run wrote: only a clock this far behind is another timeline.
 */
export const CLOCK_BEHIND_TOLERANCE_MS = 60_000;

/** What this process keeps of an earlier timeline (store/timeline-keys.ts KEPT_KINDS), for the log line. */
const KEPT = 'strategy versions, trading state (tradebot pause), fencing counters, nonce, rate-limit buckets';

/** The newest market time the earlier runs recorded (their last heartbeat or stop), if any. */
export function lastMarketMs(survey: TimelineSurvey): number | undefined {
  const ends = survey.runs.map((r) => r.stoppedMarketMs ?? r.lastSeenMarketMs);
  return ends.length === 0 ? undefined : Math.max(...ends);
}

/** The pure rule (unit-tested): what a daemon start does with the earlier state of its namespace. */
export function decidePaperStart(mode: FrozenConfig['mode'], venue: PaperVenue, survey: TimelineSurvey | undefined): FreshStartDecision {
  if (mode === 'live') return { action: 'untouched', why: 'live' };
  if (survey === undefined) return { action: 'untouched', why: 'no-redis' };
  if (survey.keys === 0) return { action: 'nothing-earlier' };
  if (survey.leaseHolders.length > 0) return { action: 'shared', holders: survey.leaseHolders };
  if (venue.kind === 'embedded') return { action: 'clear', why: 'embedded' };
  const last = lastMarketMs(survey);
  if (last === undefined) return { action: 'carry', why: 'no-market-time' };
  if (venue.marketNowMs < last - CLOCK_BEHIND_TOLERANCE_MS) return { action: 'clear', why: 'clock-behind', lastMarketMs: last };
  return { action: 'carry', why: 'same-market' };
}

export interface PaperFreshStartInput {
  readonly config: FrozenConfig;
  /** undefined: the in-process store, which holds nothing of an earlier run. */
  readonly redis: RedisConnection | undefined;
  readonly keys: StoreKeys;
  /** The venue's market clock (read for a standalone simulator only). */
  readonly marketClock: Clock;
  readonly log: Logger;
  readonly isDeadOwner?: (owner: string) => boolean;
}

/**
 * Runs at start-up once the venue is known and BEFORE anything reads the namespace (nonce check,
 * reconciliation, leases, the drift recorder's start mark). Returns what it decided.
 */
export async function preparePaperNamespace(i: PaperFreshStartInput): Promise<FreshStartDecision> {
  const { config, redis, keys, log } = i;
  if (config.mode === 'live') return decidePaperStart('live', { kind: 'embedded' }, undefined);
  const venue: PaperVenue = config.paper?.exchangeUrl === undefined ? { kind: 'embedded' } : { kind: 'standalone', marketNowMs: i.marketClock.nowMs() };
  const survey = redis === undefined ? undefined : await surveyTimeline(redis, keys, i.isDeadOwner ?? ((owner) => isDeadLocalOwner(owner)));
  const decision = decidePaperStart(config.mode, venue, survey);
  if (survey === undefined || redis === undefined) return decision;
  const earlier = earlierFields(survey);
  switch (decision.action) {
    case 'clear': {
      const cleared = await clearTimeline(redis, keys);
      const cause = decision.why === 'embedded'
        ? 'a new simulated market'
        : `the simulator's market clock (${iso(venue.kind === 'standalone' ? venue.marketNowMs : undefined)}) is before the earlier run's last market time (${iso(decision.lastMarketMs)}): a new simulated market`;
      log.warn({ ...earlier, keysCleared: cleared, kept: KEPT, account: keys.account, namespace: keys.base },
        `paper: ${cause}; the earlier paper run's state was cleared (${describe(survey)}); its drift records went with it: run \`tradebot drift\` over a paper run before restarting the daemon`);
      break;
    }
    case 'carry':
      log.info({ ...earlier, account: keys.account, namespace: keys.base },
        `paper: the running simulator continues the earlier paper run's market; its state is carried over (${describe(survey)})${decision.why === 'no-market-time' ? ' (no market time recorded to compare: drift.record is off or its records expired)' : ''}`);
      break;
    case 'shared':
      log.warn({ ...earlier, holders: decision.holders, account: keys.account, namespace: keys.base },
        `paper: another daemon holds leases in this paper namespace (${decision.holders.join(', ')}): its state is shared, nothing cleared (${describe(survey)})`);
      break;
    default:
      break;
  }
  return decision;
}

function earlierFields(s: TimelineSurvey): Record<string, unknown> {
  const first = s.runs[0]?.startedMarketMs;
  const last = lastMarketMs(s);
  return {
    orders: s.orders, openOrders: s.openOrders, runs: s.runs.length,
    ...(first === undefined ? {} : { earlierFrom: iso(first) }), ...(last === undefined ? {} : { earlierTo: iso(last) }),
  };
}

/** "42 orders journaled (3 open), 1 run recorded, market time 2021-09-18T00:05:00.000Z to 2021-09-18T04:00:00.000Z". */
function describe(s: TimelineSurvey): string {
  const first = s.runs[0]?.startedMarketMs;
  const last = lastMarketMs(s);
  const span = first === undefined || last === undefined ? 'no market time recorded' : `market time ${iso(first)} to ${iso(last)}`;
  return `${plural(s.orders, 'order')} journaled (${s.openOrders} open), ${plural(s.runs.length, 'run')} recorded, ${span}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function iso(ms: number | undefined): string {
  return ms === undefined ? 'unknown' : new Date(ms).toISOString();
}
