import { Decimal } from '../domain/decimal';
import { FINAL_STATUSES } from '../domain/order-state';
import type { OrderRecord } from '../store/order-store-port';

/**
 * The latest candle open time in [lowest, from] at which, by the journal, the strategy held no
 * position and had no order open on any of its markets: a replay started there starts from the
 * deployment's real state (balances only), so the strategy carries nothing the replay lacks.
 * Candidates are `from` and the moment before each earlier order was placed. Undefined when the
 * journal shows no such moment in range (a position held since before `lowest`).
 *
 * `endedAtMarketMs` tells when a finished order finished, on the market clock (undefined: unknown,
 * and the order counts as still open, which only moves the anchor further back).
 */
export function flatAnchor(
  records: readonly OrderRecord[], from: number, lowest: number, endedAtMarketMs: (r: OrderRecord) => number | undefined,
): number | undefined {
  const before = records.filter((r) => r.candleTime < from).sort((a, b) => a.candleTime - b.candleTime);
  // flat[i]: the first i orders (by candle) are all finished, with no net position left, by endAt[i].
  const flat: boolean[] = [true];
  const endAt: number[] = [-Infinity];
  const net = new Map<string, Decimal>();
  let nonZero = 0;
  let latestEnd = -Infinity;
  for (const r of before) {
    const ended = FINAL_STATUSES.has(r.status) ? endedAtMarketMs(r) : undefined;
    latestEnd = Math.max(latestEnd, ended ?? Infinity);
    const was = net.get(r.market) ?? ZERO;
    const now = netAfter(was, r);
    nonZero += (now.isZero() ? 0 : 1) - (was.isZero() ? 0 : 1);
    net.set(r.market, now);
    flat.push(nonZero === 0);
    endAt.push(latestEnd);
  }
  const candidates = [...new Set([from, ...before.map((r) => r.candleTime)])].filter((t) => t >= lowest).sort((a, b) => b - a);
  for (const t of candidates) {
    const i = countBefore(before, t);
    if (flat[i] === true && (endAt[i] as number) <= t * 1000) return t;
  }
  return undefined;
}

const ZERO = new Decimal(0);

/** A net position (base units) after one journaled order's fills: buys add, sells take away. */
export function netAfter(net: Decimal, r: Pick<OrderRecord, 'side' | 'filledAmount'>): Decimal {
  return r.side === 'buy' ? net.plus(r.filledAmount) : net.minus(r.filledAmount);
}

/** How many of the (sorted) records have a candle before t. */
function countBefore(sorted: readonly OrderRecord[], t: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as OrderRecord).candleTime < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
