import { deriveClientOrderId } from '../../core/client-order-id';
import type { OrderRecord } from '../../store/order-store-port';

/**
 * Client order ids of the journal vs what the exchange sees.
 *
 * A stop-limit intent is one journal record whose id is sent as is (leg `o`).
 * An OCO intent is ONE exchange request with ONE clientOrderId, but two journal records (one per
 * leg, kinds `oco_sl` / `oco_tp`, legs `sl` / `tp`). The id sent is the stop-loss record's id. The
 * venue answers the legs with `"clientOrderId": ""` (documented), so legs are found by the OCO id and
 * their order ids from the create answer, or by fingerprint (oco-fingerprint.ts); a leg is told apart
 * by its type: the stop-loss leg has an activation price. Both leg ids share the same hash and differ
 * only in the `-sl` / `-tp` suffix, so either is computed from the other without a lookup.
 */
export interface IntentIdInput {
  readonly strategy: string;
  readonly market: string;
  readonly candleTime: number;
  readonly tag?: string | undefined;
}

export function stopLimitId(input: IntentIdInput): string {
  return deriveClientOrderId({ ...input, leg: 'o' });
}

export function ocoLegIds(input: IntentIdInput): { readonly sl: string; readonly tp: string } {
  return { sl: deriveClientOrderId({ ...input, leg: 'sl' }), tp: deriveClientOrderId({ ...input, leg: 'tp' }) };
}

/** The clientOrderId the exchange knows the record's order by. */
export function exchangeClientOrderId(record: Pick<OrderRecord, 'clientOrderId' | 'kind'>): string {
  return record.kind === 'oco_tp' ? record.clientOrderId.replace(/-tp$/, '-sl') : record.clientOrderId;
}

/** The other leg's journal id of an OCO record; undefined for a stop-limit. */
export function siblingLegId(record: Pick<OrderRecord, 'clientOrderId' | 'kind'>): string | undefined {
  if (record.kind === 'oco_sl') return record.clientOrderId.replace(/-sl$/, '-tp');
  if (record.kind === 'oco_tp') return record.clientOrderId.replace(/-tp$/, '-sl');
  return undefined;
}
