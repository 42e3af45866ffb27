import { isValidClientOrderId } from '../core/client-order-id';
import type { Clock } from '../core/clock';
import { checkedDecimalText, Decimal, parseDecimal } from '../domain/decimal';
import { RequestValidationError, StoreUnavailableError } from '../domain/errors';
import { isOrderStatus, type OrderEventType, type OrderStatus } from '../domain/order-state';
import { StoreKeys } from './keys';
import { ORDER_KINDS, type NewOrderRecord, type OrderKind, type OrderPatch, type OrderRecord, type OrderTransitionEntry } from './order-store-port';

/**
 * The journal record's flat string form (a Redis hash; the in-memory store keeps the same map) and
 * the conversions both adapters share, so they cannot drift apart.
 */
export type RecordFields = Record<string, string>;

/** Parameters are small (numbers and names); a bound keeps one odd strategy from bloating every record. */
export const MAX_PARAMS_TEXT = 4096;

function money(value: Decimal | string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  // A Decimal of ours already prints in normal form: checked (plain, not negative) without the
  // parse-and-print round trip, which cost one Decimal per money field of every journal write.
  if (value instanceof Decimal) return checkedDecimalText(value, field);
  if (value === '0') return value; // most patches' money and fee: nothing traded yet
  return parseDecimal(String(value), field).toString();
}

/** Validates a new record and returns its fields (without `status`). */
export function newRecordFields(input: NewOrderRecord, nowMs: number): RecordFields {
  const problems: Record<string, string[]> = {};
  if (!isValidClientOrderId(input.clientOrderId)) problems['clientOrderId'] = ['letters, digits, "-", ".", "_"; at most 64'];
  if (input.strategy.length === 0) problems['strategy'] = ['must not be empty'];
  if (input.market.length === 0) problems['market'] = ['must not be empty'];
  if (input.side !== 'buy' && input.side !== 'sell') problems['side'] = ['buy or sell'];
  if (!ORDER_KINDS.includes(input.kind)) problems['kind'] = [`one of ${ORDER_KINDS.join(', ')}`];
  if (input.purpose !== undefined && input.purpose !== 'entry' && input.purpose !== 'exit') problems['purpose'] = ['entry or exit'];
  if (!Number.isSafeInteger(input.candleTime) || input.candleTime < 0) problems['candleTime'] = ['Unix seconds, integer'];
  if (input.candleCloseTime !== undefined && (!Number.isSafeInteger(input.candleCloseTime) || input.candleCloseTime <= input.candleTime)) {
    problems['candleCloseTime'] = ['Unix seconds, integer, after candleTime'];
  }
  if (input.strategyVersion !== undefined && !/^[0-9a-f]{12}$/.test(input.strategyVersion)) problems['strategyVersion'] = ['12 lowercase hex digits'];
  if (input.strategyParams !== undefined && input.strategyParams.length > MAX_PARAMS_TEXT) problems['strategyParams'] = [`at most ${MAX_PARAMS_TEXT} characters of JSON`];
  if (Object.keys(problems).length > 0) {
    throw new RequestValidationError('invalid order journal record', problems, { clientOrderId: input.clientOrderId });
  }
  const fields: RecordFields = {
    clientOrderId: input.clientOrderId,
    strategy: input.strategy,
    market: input.market,
    scope: StoreKeys.liveCountField(input.strategy, input.market),
    side: input.side,
    kind: input.kind,
    amount: money(input.amount, 'amount') as string,
    price: money(input.price, 'price') as string,
    candleTime: String(input.candleTime),
    filledAmount: '0',
    filledMoney: '0',
    fee: '0',
    createdAtMs: String(nowMs),
    updatedAtMs: String(nowMs),
  };
  const activation = money(input.activationPrice, 'activationPrice');
  if (activation !== undefined) fields['activationPrice'] = activation;
  const stopLimit = money(input.stopLimitPrice, 'stopLimitPrice');
  if (stopLimit !== undefined) fields['stopLimitPrice'] = stopLimit;
  if (input.reason !== undefined) fields['reason'] = input.reason;
  if (input.purpose !== undefined) fields['purpose'] = input.purpose;
  if (input.candleCloseTime !== undefined) fields['candleCloseTime'] = String(input.candleCloseTime);
  if (input.strategyVersion !== undefined) fields['strategyVersion'] = input.strategyVersion;
  if (input.strategyParams !== undefined) fields['strategyParams'] = input.strategyParams;
  return fields;
}

/** The fields a patch sets (plus updatedAtMs). */
export function patchFields(patch: OrderPatch, nowMs: number): RecordFields {
  const fields: RecordFields = { updatedAtMs: String(nowMs) };
  if (patch.orderId !== undefined) fields['orderId'] = String(patch.orderId);
  if (patch.ocoId !== undefined) fields['ocoId'] = String(patch.ocoId);
  if (patch.filledAmount !== undefined) fields['filledAmount'] = money(patch.filledAmount, 'filledAmount') as string;
  if (patch.filledMoney !== undefined) fields['filledMoney'] = money(patch.filledMoney, 'filledMoney') as string;
  if (patch.fee !== undefined) fields['fee'] = money(patch.fee, 'fee') as string;
  if (patch.reason !== undefined) fields['reason'] = patch.reason;
  return fields;
}

/** When a journal step happened, on both clocks. */
export interface JournalTime {
  readonly atMs: number;
  readonly marketMs: number;
}

/** The journal's two clocks read once for one step. */
export function journalTime(wall: Clock, market: Clock): JournalTime {
  return { atMs: wall.nowMs(), marketMs: market.nowMs() };
}

export function transitionEntry(at: JournalTime, event: OrderEventType | 'record', from: OrderStatus | null, to: OrderStatus, reason?: string): OrderTransitionEntry {
  const entry = { atMs: at.atMs, marketMs: at.marketMs, event, from, to };
  return reason === undefined ? entry : { ...entry, reason };
}

/** The history entry as the Redis list stores it (one JSON line). */
export function historyEntry(at: JournalTime, event: OrderEventType | 'record', from: OrderStatus | null, to: OrderStatus, reason?: string): string {
  return JSON.stringify(transitionEntry(at, event, from, to, reason));
}

/** Flattens fields for a Lua ARGV tail: field, value, field, value ... */
export function flatten(fields: RecordFields): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(fields)) out.push(k, v);
  return out;
}

function optionalNumber(value: string | undefined): number | undefined {
  return value === undefined || value === '' ? undefined : Number(value);
}

/** Builds the record from its stored fields and history; a damaged record is a store error. */
export function parseRecord(fields: RecordFields, history: readonly string[]): OrderRecord {
  const status = fields['status'];
  const kind = fields['kind'] as OrderKind | undefined;
  const side = fields['side'];
  const required = ['clientOrderId', 'strategy', 'market', 'amount', 'price', 'candleTime', 'createdAtMs', 'updatedAtMs'];
  const missing = required.filter((f) => fields[f] === undefined);
  if (!isOrderStatus(status) || kind === undefined || (side !== 'buy' && side !== 'sell') || missing.length > 0) {
    throw new StoreUnavailableError('order journal record is damaged', { clientOrderId: fields['clientOrderId'], missing });
  }
  return {
    clientOrderId: fields['clientOrderId'] as string,
    strategy: fields['strategy'] as string,
    market: fields['market'] as string,
    side,
    kind,
    amount: fields['amount'] as string,
    price: fields['price'] as string,
    activationPrice: fields['activationPrice'],
    stopLimitPrice: fields['stopLimitPrice'],
    candleTime: Number(fields['candleTime']),
    candleCloseTime: optionalNumber(fields['candleCloseTime']),
    purpose: fields['purpose'] === 'entry' || fields['purpose'] === 'exit' ? fields['purpose'] : undefined,
    strategyVersion: fields['strategyVersion'],
    strategyParams: fields['strategyParams'],
    status,
    orderId: optionalNumber(fields['orderId']),
    ocoId: optionalNumber(fields['ocoId']),
    filledAmount: fields['filledAmount'] ?? '0',
    // Records journaled before these fields existed read as "0" (nothing known), like filledAmount.
    filledMoney: fields['filledMoney'] ?? '0',
    fee: fields['fee'] ?? '0',
    createdAtMs: Number(fields['createdAtMs']),
    updatedAtMs: Number(fields['updatedAtMs']),
    reason: fields['reason'],
    fencingToken: optionalNumber(fields['fencingToken']),
    history: history.map((line) => JSON.parse(line) as OrderTransitionEntry),
  };
}
