import type { OrderLogEntry } from './order-log';

/** One reason orders were denied (a pre-trade rule) or rejected (the venue), with how often and when first. */
export interface OutcomeGroup {
  /** denied: the risk rule (`balance`, `price_band`, ...); rejected: the error code (`TB_ERR_...`) and venue code. */
  readonly key: string;
  readonly count: number;
  /** Market clock (Unix s) of the first one. */
  readonly firstTime: number;
  /** The first one's explanation (later ones differ only in numbers). */
  readonly example: string;
}

/** What happened to a run's intents, counted (stdout summary, report.json `orders`, report.html). */
export interface OrderOutcomes {
  /** Orders the venue accepted (stop-limits and OCOs). */
  readonly placed: number;
  readonly denied: number;
  readonly rejected: number;
  readonly canceled: number;
  /** Cancels of orders already finished (filled or canceled before the cancel arrived). */
  readonly cancelTooLate: number;
  /** Denials by rule, most frequent first. */
  readonly deniedBy: readonly OutcomeGroup[];
  /** Rejections by code and venue message, most frequent first. */
  readonly rejectedBy: readonly OutcomeGroup[];
}

export function summariseOrders(log: readonly OrderLogEntry[]): OrderOutcomes {
  let placed = 0;
  let canceled = 0;
  let cancelTooLate = 0;
  const denied = new Map<string, { count: number; firstTime: number; example: string }>();
  const rejected = new Map<string, { count: number; firstTime: number; example: string }>();
  const add = (groups: typeof denied, key: string, e: OrderLogEntry): void => {
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { count: 1, firstTime: e.time, example: describe(e) });
    else g.count++;
  };
  for (const e of log) {
    if (e.outcome === 'placed') placed++;
    else if (e.outcome === 'canceled') canceled++;
    else if (e.outcome === 'existing') cancelTooLate++;
    else if (e.outcome === 'denied') add(denied, e.rule ?? 'unknown', e);
    else add(rejected, e.venueCode === undefined ? e.rule ?? 'unknown' : `${e.rule ?? 'rejected'} (venue code ${e.venueCode})`, e);
  }
  return {
    placed, canceled, cancelTooLate,
    denied: total(denied), rejected: total(rejected),
    deniedBy: groups(denied), rejectedBy: groups(rejected),
  };
}

function describe(e: OrderLogEntry): string {
  const what = e.kind === 'cancel' ? `cancel ${e.clientOrderId ?? ''}` : `${e.kind} ${e.side ?? ''} ${e.amount?.toString() ?? ''} ${e.market}`;
  return `${what.replace(/\s+/g, ' ').trim()}: ${e.reason ?? e.rule ?? 'no reason given'}`;
}

function total(groups: ReadonlyMap<string, { count: number }>): number {
  let n = 0;
  for (const g of groups.values()) n += g.count;
  return n;
}

function groups(map: ReadonlyMap<string, { count: number; firstTime: number; example: string }>): OutcomeGroup[] {
  return [...map].map(([key, g]) => ({ key, ...g })).sort((a, b) => b.count - a.count || a.firstTime - b.firstTime);
}
