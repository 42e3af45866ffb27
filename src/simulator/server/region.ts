import type { WireEndpointId } from '../../exchange/wire/endpoints';

/**
 * The region the simulated account trades in. The venue narrows the order types per region
 * (venue docs, concepts/order-types "Regional restrictions"): in the EU, spot offers only market,
 * advanced-limit (IOC) and stop-market; limit, stop-limit and OCO are not available, nor is margin.
 * An order of a type the region does not offer is refused at creation with HTTP 453.
 */
export type SimRegion = 'global' | 'eu';
export const SIM_REGIONS: readonly SimRegion[] = ['global', 'eu'];

/** Order-create endpoints the EU region refuses, by the order type they create. */
const EU_REFUSED: Partial<Record<WireEndpointId, string>> = {
  stopLimit: 'stop limit',
  collateralOco: 'oco',
  limitOrder: 'limit',
};

/** The venue's documented 453 answer (same key order as its example). */
export const ORDER_TYPE_NOT_AVAILABLE = { code: 30, errors: { orderType: ['This order type is not available'] }, message: 'Validation failed' } as const;

/** [453, body] when `region` does not offer the order type `endpoint` creates; undefined otherwise. */
export function regionRefusal(region: SimRegion, endpoint: WireEndpointId): readonly [number, unknown] | undefined {
  if (region !== 'eu' || EU_REFUSED[endpoint] === undefined) return undefined;
  return [453, ORDER_TYPE_NOT_AVAILABLE];
}
