import type { WireEndpointId } from '../http/endpoints';
import { SHARED_SHAPES, type ShapeId, type ShapeTable } from './answer-shapes';
import { ENDPOINT_TABLE } from './endpoint-table';

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
 * and the answer shapes it returns, whose field names are in `shapes`. Each is built from the one
 * endpoint table (endpoint-table.ts) and its DialectDifferences. The result is applied at the edge,
 * once: the client's request build and answer parse, the simulator's request parse and answer
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

/** What a dialect changes in the endpoint table; everything it does not name is written as the table has it. */
export interface DialectDifferences {
  readonly name: DialectName;
  /** Request fields this dialect spells differently (canonical name -> wire name), on every endpoint. */
  readonly spelling: Readonly<Record<string, string>>;
  /** Endpoints this dialect serves at another path. */
  readonly paths?: Readonly<Partial<Record<WireEndpointId, string>>>;
  /** Request fields of the table an endpoint does not take in this dialect. */
  readonly withoutFields?: Readonly<Partial<Record<WireEndpointId, readonly string[]>>>;
  /** The answer shapes whose field names differ from the shared ones (answer-shapes.ts). */
  readonly shapes: Pick<ShapeTable, Exclude<ShapeId, keyof typeof SHARED_SHAPES>>;
}

export function dialectOf(d: DialectDifferences): Dialect {
  const endpoints = {} as Record<WireEndpointId, EndpointWire>;
  for (const [id, row] of Object.entries(ENDPOINT_TABLE) as [WireEndpointId, (typeof ENDPOINT_TABLE)[WireEndpointId]][]) {
    const without = d.withoutFields?.[id] ?? [];
    const request: Record<string, string> = {};
    for (const field of row.fields) if (!without.includes(field)) request[field] = d.spelling[field] ?? field;
    endpoints[id] = { path: d.paths?.[id] ?? row.path, request, answer: row.answer };
  }
  return { name: d.name, endpoints, shapes: { ...SHARED_SHAPES, ...d.shapes } };
}
