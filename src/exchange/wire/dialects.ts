import { ConfigError } from '../../domain/errors';
import { sameNames, SHARED_SHAPES, type ShapeId, type ShapeTable } from './answer-shapes';
import { WIRE_ENDPOINTS, type Endpoint, type WireEndpointId } from './endpoints';

/**
 * A wire dialect: how one venue spells the API. Two exist:
 * - `venue` (the default): the exchange's own documentation (github.com/whitebit-exchange/docs, the
 *   OpenAPI files under openapi/) and the widely used clients (ccxt): camelCase ids (`clientOrderId`,
 *   `orderId`, `dealMoney`...), the active-OCO list at `/api/v4/oco-orders`, the fields the
 *   documentation writes in snake_case kept as written (`activation_price`, `stop_limit_price`, the
 *   OCO legs' `post_only`, `activation_condition`). The default, because money runs on the real venue.
 * - `spec`: the spellings of exchange-api.md (snake_case order ids `client_order_id`, `order_id`,
 *   `deal_money`..., the few camelCase fields it lists: `postOnly`, `activationCondition`), the OCO
 *   list at `/api/v4/orders/oco`, a main balance that takes no parameters. Where the spec is silent
 *   (cancel, active orders, OCO create and cancel) its snake_case ids are used.
 *
 * A dialect's table is the endpoint table (endpoints.ts) spelled for the wire: each entry is the
 * endpoint's row with the dialect's path and the wire name of every request field it sends (a field
 * missing there is not part of the endpoint in this dialect); `shapes` spells the answers. It is
 * applied at the edge, once: the client's request build and answer parse, the simulator's request
 * parse and answer render. Everything else speaks the canonical (domain) names.
 */
export const DIALECT_NAMES = ['venue', 'spec'] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];
export const DEFAULT_DIALECT: DialectName = 'venue';

export interface EndpointWire extends Endpoint {
  /** Canonical request field -> its wire name, for every field the endpoint takes in this dialect. */
  readonly request: Readonly<Record<string, string>>;
}

export interface Dialect {
  readonly name: DialectName;
  readonly endpoints: Readonly<Record<WireEndpointId, EndpointWire>>;
  readonly shapes: ShapeTable;
}

/** What a dialect changes in the endpoint table; everything it does not name is written as the table has it. */
interface DialectDifferences {
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

/**
 * Spells the table. A spelling that could not be routed or read (a withheld required field, a field
 * name, route or answer field used twice) throws when the module loads, so every test that loads it checks it.
 */
function dialectOf(d: DialectDifferences): Dialect {
  const endpoints = {} as Record<WireEndpointId, EndpointWire>;
  const routes = new Set<string>();
  for (const [id, row] of Object.entries(WIRE_ENDPOINTS) as [WireEndpointId, Endpoint][]) {
    const without = d.withoutFields?.[id] ?? [];
    const request: Record<string, string> = {};
    for (const [field, spec] of Object.entries(row.fields)) {
      if (without.includes(field) && spec.required) throw new Error(`${d.name} dialect: ${id} cannot go without its required ${field}`);
      if (!without.includes(field)) request[field] = d.spelling[field] ?? field;
    }
    const path = d.paths?.[id] ?? row.path;
    const route = `${row.method} ${path}`;
    if (routes.has(route) || new Set(Object.values(request)).size !== Object.keys(request).length) throw new Error(`${d.name} dialect: ${id} repeats a route or a field name`);
    routes.add(route);
    endpoints[id] = { ...row, path, request };
  }
  const shapes: ShapeTable = { ...SHARED_SHAPES, ...d.shapes };
  for (const [shape, names] of Object.entries(shapes)) {
    const sent = Object.values(names as Readonly<Record<string, string | null>>).filter((n) => n !== null);
    if (new Set(sent).size !== sent.length) throw new Error(`${d.name} dialect: the ${shape} answer spells two fields alike`);
  }
  return { name: d.name, endpoints, shapes };
}

const snakeDeals = { dealMoney: 'deal_money', dealStock: 'deal_stock', dealFee: 'deal_fee' } as const;
const snakeLegs = { postOnly: 'post_only', activationPrice: 'activation_price', activationCondition: 'activation_condition' } as const;
const snakeIds = { orderId: 'order_id', clientOrderId: 'client_order_id' } as const;

export const DIALECTS: Readonly<Record<DialectName, Dialect>> = {
  venue: dialectOf({
    name: 'venue',
    spelling: { activationPrice: 'activation_price', stopLimitPrice: 'stop_limit_price' },
    shapes: {
      order: sameNames('order', { activationPrice: 'activation_price' }),
      ocoLeg: sameNames('ocoLeg', snakeLegs),
      // The list and cancel legs carry reduceOnly but no fee ratios (the create legs do).
      ocoListLeg: sameNames('ocoListLeg', { ...snakeLegs, takerFee: null, makerFee: null }),
    },
  }),
  spec: dialectOf({
    name: 'spec',
    spelling: { activationPrice: 'activation_price', stopLimitPrice: 'stop_limit_price', ...snakeIds },
    paths: { ocoList: '/api/v4/orders/oco' },
    withoutFields: { mainBalance: ['ticker'] },
    shapes: {
      order: sameNames('order', { ...snakeIds, ...snakeDeals, activationPrice: 'activation_price' }),
      ocoLeg: sameNames('ocoLeg', { ...snakeIds, ...snakeDeals, ...snakeLegs }),
      // The spec's OCO list item: fee ratios, no reduceOnly.
      ocoListLeg: sameNames('ocoListLeg', { ...snakeIds, ...snakeDeals, ...snakeLegs, reduceOnly: null }),
    },
  }),
};

export function dialectNamed(name: string): Dialect {
  if (!(DIALECT_NAMES as readonly string[]).includes(name)) {
    throw new ConfigError(`unknown wire dialect "${name}"; one of: ${DIALECT_NAMES.join(', ')}`, { path: 'dialect' });
  }
  return DIALECTS[name as DialectName];
}

/** The endpoint a dialect serves at `path`, if any. */
export function endpointAt(dialect: Dialect, path: string): WireEndpointId | undefined {
  for (const [id, wire] of Object.entries(dialect.endpoints)) if (wire.path === path) return id as WireEndpointId;
  return undefined;
}
