import { Decimal } from '../../domain/decimal';
import type { OrderReport } from '../../domain/order';
import type { OrderRecord } from '../../store/order-store-port';

/** The order facts a venue report must share with the journal record it is applied to. */
export type AgreementField = 'market' | 'side' | 'kind' | 'amount' | 'price' | 'activationPrice';

export interface Disagreement {
  readonly field: AgreementField;
  /** The journal's value (a plain decimal string for money fields). */
  readonly journaled: string;
  /** The report's value, `none` when the report does not show it. */
  readonly reported: string;
}

export type AgreementRecord = Pick<OrderRecord, 'market' | 'side' | 'kind' | 'amount' | 'price' | 'activationPrice' | 'stopLimitPrice'>;

/**
 * Whether a venue report found by identity (order id or client order id) describes the order the
 * journal record says it sent: the same market, side, kind (venue type: a spot `stop limit` for a
 * stop-limit, a stop-limit / limit type for an OCO's stop-loss / take-profit leg), amount and limit
 * price, and the activation price when the report shows one (stream pushes do not). Amounts and
 * prices are compared as decimals. The first field that differs, or undefined when they agree.
 *
 * ONE rule for every path that reads a report for a record: REST settlement (order-locator.ts) and
 * the account stream (stream-order-rules.ts). Ids only say which record a report claims; these
 * facts say whether it can be that record's order. A report that disagrees is never applied.
 */
export function reportDisagreement(record: AgreementRecord, report: OrderReport): Disagreement | undefined {
  if (report.market !== record.market) return { field: 'market', journaled: record.market, reported: report.market };
  if (report.side !== record.side) return { field: 'side', journaled: record.side, reported: report.side };
  if (!typeFitsKind(report.type, record)) return { field: 'kind', journaled: record.kind, reported: report.type };
  if (!same(report.amount, record.amount)) return { field: 'amount', journaled: record.amount, reported: shown(report.amount) };
  const limit = record.kind === 'oco_sl' ? record.stopLimitPrice : record.price;
  if (limit !== undefined && !same(report.price, limit)) return { field: 'price', journaled: limit, reported: shown(report.price) };
  const activation = record.kind === 'oco_tp' ? undefined : record.activationPrice;
  if (report.activationPrice !== undefined && activation !== undefined && !same(report.activationPrice, activation)) {
    return { field: 'activationPrice', journaled: activation, reported: shown(report.activationPrice) };
  }
  return undefined;
}

/**
 * Venue type texts (exchange-api-extra.md "type values"): spot `limit`, `stop limit`; collateral
 * (OCO legs) `margin limit`, `margin stop limit`. A stop-limit record is a spot stop limit (the venue
 * keeps the type on activation: orders-pending.mdx "Stop order activation"); a `stop_limit` record
 * WITHOUT an activation price is a plain limit order the reconciler adopted (unknownOrderPolicy
 * `adopt`, unknown-orders.ts), the only way such a record exists. An OCO leg is its leg's type, spot
 * or margin spelling.
 */
function typeFitsKind(type: string, record: Pick<OrderRecord, 'kind' | 'activationPrice'>): boolean {
  const t = type.trim().toLowerCase();
  switch (record.kind) {
    case 'stop_limit': return t === 'stop limit' || (record.activationPrice === undefined && t === 'limit');
    case 'oco_sl': return t === 'margin stop limit' || t === 'stop limit';
    case 'oco_tp': return t === 'margin limit' || t === 'limit';
  }
}

function same(reported: Decimal | undefined, journaled: string): boolean {
  return reported !== undefined && reported.equals(new Decimal(journaled));
}

function shown(d: Decimal | undefined): string {
  return d === undefined ? 'none' : d.toString();
}

/** One line for logs and ambiguity reasons: which field, the journal's value, the report's value. */
export function describeDisagreement(d: Disagreement): string {
  return `${d.field}: journal ${d.journaled}, venue report ${d.reported}`;
}
