import type { WireEndpointId } from '../http/endpoints';
import type { ShapeId, ShapeTable } from './answer-shapes';

/**
 * A wire dialect: how one venue spells the API. Two exist:
 * - `venue` (the default): the exchange's own documentation and the widely used clients (ccxt):
 *   camelCase ids (`clientOrderId`, `orderId`, `dealMoney`...), the active-OCO list at
 *   `/api/v4/oco-orders`, the fields the documentation writes in snake_case kept as written
 *   (`activation_price`, `stop_limit_price`, the OCO legs' `post_only`, `activation_condition`).
 * - `spec`: the spellings of exchange-api.md (snake_case order ids `client_order_id`, `order_id`,
 *   `deal_money`..., the OCO list at `/api/v4/orders/oco`).
 *
 * A dialect is data: for every endpoint its path, the wire name of every request field it sends
 * (canonical name -> wire name; a field missing here is not part of the endpoint in this dialect),
 * and the answer shapes it returns, whose field names are in `shapes`. The table is applied at the
 * edge, once: the client's request build and answer parse, the simulator's request parse and answer
 * render. Everything else speaks the canonical (domain) names.
 */
export const DIALECT_NAMES = ['venue', 'spec'] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];
export const DEFAULT_DIALECT: DialectName = 'venue';

export interface EndpointWire {
  readonly path: string;
  /** Canonical request field -> its wire name, for every field the endpoint takes in this dialect. */
  readonly request: Readonly<Record<string, string>>;
  /** The shapes the answer is made of (their field names: `Dialect.shapes`). */
  readonly answer: readonly ShapeId[];
}

export interface Dialect {
  readonly name: DialectName;
  readonly endpoints: Readonly<Record<WireEndpointId, EndpointWire>>;
  readonly shapes: ShapeTable;
}

/**
 * Builds an endpoint's request map from canonical names: `spelling` renames the fields this dialect
 * writes differently, every other field is written as named.
 */
export function requestNames(spelling: Readonly<Record<string, string>>, ...fields: readonly string[]): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const field of fields) out[field] = spelling[field] ?? field;
  return out;
}
