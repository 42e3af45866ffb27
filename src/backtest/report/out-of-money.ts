import type { OrderLogEntry } from '../replay/order-log';

/** Denials in a row at the end of a run that say it ran out of money (one or two can be a single oversized order). */
export const OUT_OF_MONEY_STREAK = 3;

/** When a run ran out of money: the first of its trailing balance denials, and how many there were. */
export interface OutOfMoney {
  /** Market time (Unix s) of the first denial of the trailing streak. */
  readonly since: number;
  /** Intents denied for `balance` from then to the end, with no order placed in between. */
  readonly denials: number;
}

/**
 * Did the run end out of money? Yes when its last OUT_OF_MONEY_STREAK or more order intents (cancels
 * left out) were all denied by the `balance` rule: from then on the strategy could place nothing, so
 * its figures describe a run that stopped, not one that chose to wait. Read once from the finished
 * run's order log (no work per candle).
 */
export function outOfMoney(orders: readonly OrderLogEntry[]): OutOfMoney | undefined {
  let denials = 0;
  let since: number | undefined;
  for (let i = orders.length - 1; i >= 0; i--) {
    const o = orders[i] as OrderLogEntry;
    if (o.kind === 'cancel') continue;
    if (o.outcome !== 'denied' || o.rule !== 'balance') break;
    denials++;
    since = o.time;
  }
  return denials >= OUT_OF_MONEY_STREAK && since !== undefined ? { since, denials } : undefined;
}

/** The table cell: `ok`, or when and after how many balance denials the money ran out. */
export function outOfMoneyCell(o: OutOfMoney | undefined): string {
  return o === undefined ? 'ok' : `OUT since ${new Date(o.since * 1000).toISOString().slice(0, 16)}Z (${o.denials} balance denials)`;
}
