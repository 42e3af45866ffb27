import { Decimal } from '../domain/decimal';

/**
 * Reload never abandons (issue #29, finding 6). A strategy gets candles and order events only for the
 * markets its live version trades: once a version without market M is live, the strategy's resting
 * orders on M and its position there are never managed again. So a version that drops a market
 * where the strategy has something open is refused; one that drops a market with nothing open is
 * accepted. Pure: the daemon reads what is open (journal, portfolio) and hands it in.
 */

/** What a strategy has open on one market. */
export interface OpenOnMarket {
  readonly market: string;
  /** Client order ids of its live orders there (the journal's open-order book; an OCO is one id). */
  readonly orders: readonly string[];
  /** Its signed position there as the portfolio holds it (decimal string, "0" when flat). */
  readonly position: string;
}

/** What `strategy` has open on each of `markets`, read fresh from the journal and the portfolio. */
export type OpenOnMarkets = (strategy: string, markets: readonly string[]) => Promise<readonly OpenOnMarket[]>;

/** Markets `from` trades and `to` does not, in `from`'s order. */
export function droppedMarkets(from: readonly string[], to: readonly string[]): string[] {
  return from.filter((m) => !to.includes(m));
}

export function isOpen(o: OpenOnMarket): boolean {
  return o.orders.length > 0 || !new Decimal(o.position).isZero();
}

/** Ids named in a reply (more would only flood the CLI; the count says how many). */
const MAX_IDS = 10;

/** "BTC_USDT: open orders a, b and a position of 0.5" */
export function describeOpen(o: OpenOnMarket): string {
  const parts: string[] = [];
  if (o.orders.length > 0) {
    const shown = o.orders.slice(0, MAX_IDS).join(', ');
    const more = o.orders.length > MAX_IDS ? ` and ${o.orders.length - MAX_IDS} more` : '';
    parts.push(`${o.orders.length === 1 ? 'open order' : `${o.orders.length} open orders`} ${shown}${more}`);
  }
  if (!new Decimal(o.position).isZero()) parts.push(`a position of ${o.position}`);
  return `${o.market}: ${parts.join(' and ')}`;
}

/**
 * Why switching `strategy` to `version` (which no longer trades the markets of `open`) would abandon
 * something, or undefined when nothing is open on any of them.
 */
export function abandonReason(strategy: string, version: string, open: readonly OpenOnMarket[]): string | undefined {
  const blocking = open.filter(isOpen);
  if (blocking.length === 0) return undefined;
  const markets = blocking.map((o) => o.market).join(', ');
  return `version ${version} of ${strategy} no longer trades ${markets}, where ${strategy} has ${blocking.map(describeOpen).join('; ')}: `
    + 'no candle or order event would reach them after the switch, so nothing would manage them. The running version keeps trading; '
    + `wind them down first (cancel the orders, close the position) or keep ${markets} in the new version's markets, then try again`;
}
