import {
  ClientOrderIdIgnoredError, DuplicateClientOrderIdError, ExchangeRejectedError, ExchangeUnavailableError, InvalidTransitionError, RequestValidationError, StaleStateError, TradebotError,
} from '../../domain/errors';
import type { OrderReport } from '../../domain/order';
import type { ExchangeClient } from '../../exchange/exchange-client';
import type { OrderRecord, OrderStore } from '../../store/order-store-port';
import { safeEmit, type ExecutionEvents } from '../journal/events';
import { applyReport } from '../journal/journal-updater';
import { exchangeClientOrderId } from '../journal/oco-ids';
import type { Settler } from '../reconciliation/settler';

export type SendExchange = Pick<ExchangeClient, 'placeStopLimit' | 'placeOco'>;

/** How one send ended. `unknown`: the answer was lost; the settler/reconciler resolves it by asking. */
export type SendOutcome =
  | { readonly outcome: 'accepted'; readonly records: readonly OrderRecord[]; readonly journaled: boolean }
  | { readonly outcome: 'rejected'; readonly records: readonly OrderRecord[]; readonly reason: string; readonly error?: TradebotError }
  | { readonly outcome: 'unknown'; readonly records: readonly OrderRecord[]; readonly reason: string };

/**
 * Sends journaled `submitted` records (one stop-limit, or the two legs of one OCO) ONCE and records
 * the outcome. The request is rebuilt from the journal, so what is sent is exactly what was recorded.
 *
 * The two branches of domain/errors.ts decide:
 * - an answer: journal it (accept / trigger / fill ...), one compare-and-set per record;
 * - ExchangeRejectedError (the venue said no), RequestValidationError (refused locally) or a
 *   connection that never opened (transport context `notSent`): `reject`;
 * - DuplicateClientOrderIdError: the order EXISTS (an earlier send got through): look it up and adopt
 *   its order id;
 * - anything else (timeout, connection lost, 5xx, unparseable answer, a nonce/limiter failure): the
 *   order may exist. `lose_answer` -> `unknown`, one immediate look-up, and otherwise the settler's
 *   periodic pass. Never a resend under a new id.
 */
export class OrderSender {
  constructor(
    private readonly exchange: SendExchange,
    private readonly store: OrderStore,
    private readonly settler: Settler,
    private readonly events: ExecutionEvents,
  ) {}

  async send(records: readonly OrderRecord[]): Promise<SendOutcome> {
    const first = records[0];
    if (first === undefined) throw new InvalidTransitionError('nothing to send', {});
    let reports: (OrderReport | undefined)[];
    let ocoId: number | undefined;
    try {
      if (first.kind === 'stop_limit') {
        reports = [await this.exchange.placeStopLimit({
          market: first.market, side: first.side, amount: first.amount, price: first.price,
          activationPrice: first.activationPrice ?? first.price, clientOrderId: exchangeClientOrderId(first),
        })];
      } else {
        const oco = await this.exchange.placeOco({
          market: first.market, side: first.side, amount: first.amount, price: first.price,
          activationPrice: first.activationPrice ?? first.price, stopLimitPrice: first.stopLimitPrice ?? first.price,
          clientOrderId: exchangeClientOrderId(first),
        });
        ocoId = oco.id;
        reports = records.map((r) => (r.kind === 'oco_sl' ? oco.stopLoss : oco.takeProfit));
      }
    } catch (err) {
      return this.failed(records, err);
    }
    return this.recordAnswer(records, reports, ocoId);
  }

  private async recordAnswer(records: readonly OrderRecord[], reports: readonly (OrderReport | undefined)[], ocoId: number | undefined): Promise<SendOutcome> {
    const out: OrderRecord[] = [];
    let journaled = true;
    for (let i = 0; i < records.length; i++) {
      const record = records[i] as OrderRecord;
      const report = reports[i];
      try {
        out.push(report ? (await applyReport(this.store, this.events, record, report, ocoId)).record : record);
      } catch (err) {
        // Redis failed after the exchange answered: the record stays `submitted` and the
        // reconciler settles it from the exchange once Redis is back. Nothing is resent.
        journaled = false;
        out.push(record);
        safeEmit(this.events, { type: 'JournalWriteFailed', clientOrderId: record.clientOrderId, error: describe(err) });
      }
    }
    return { outcome: 'accepted', records: out, journaled };
  }

  private async failed(records: readonly OrderRecord[], err: unknown): Promise<SendOutcome> {
    if (err instanceof ClientOrderIdIgnoredError) return this.contained(records, err);
    if (err instanceof DuplicateClientOrderIdError) {
      // It exists. Adopt what the exchange has; if the look-up cannot see it yet, it stays
      // `submitted` and the periodic settler finds it.
      const out: OrderRecord[] = [];
      for (const record of records) {
        await this.settler.settle(record, undefined, { ownRequest: true }).catch(() => 'waiting');
        out.push((await this.store.get(record.clientOrderId)) ?? record);
      }
      return { outcome: 'accepted', records: out, journaled: true };
    }
    // The transport marks connection failures that happened before anything was written (e.g.
    // ECONNREFUSED): the request cannot have had an effect, so waiting to settle it would only delay.
    const notSent = err instanceof ExchangeUnavailableError && err.context['notSent'] === true;
    if (err instanceof ExchangeRejectedError || err instanceof RequestValidationError || notSent) {
      const reason = describe(err);
      const out: OrderRecord[] = [];
      for (const record of records) out.push(await this.transitionSafely(record, 'reject', reason, err.code));
      if (err instanceof ExchangeRejectedError && err.httpStatus === ORDER_TYPE_NOT_AVAILABLE) {
        safeEmit(this.events, { type: 'OrderTypeRefused', clientOrderId: first(records).clientOrderId, market: first(records).market, kind: first(records).kind, reason });
      }
      return { outcome: 'rejected', records: out, reason, error: err };
    }
    const reason = describe(err);
    const out: OrderRecord[] = [];
    for (const record of records) {
      safeEmit(this.events, { type: 'OrderAnswerLost', clientOrderId: record.clientOrderId, error: reason });
      out.push(await this.transitionSafely(record, 'lose_answer', reason));
    }
    // One immediate look-up: a "processed, answer lost" order is usually visible already.
    for (const record of out) await this.settler.settle(record, undefined, { ownRequest: true }).catch(() => 'waiting');
    return { outcome: 'unknown', records: await Promise.all(out.map(async (r) => (await this.store.get(r.clientOrderId).catch(() => r)) ?? r)), reason };
  }

  /**
   * The venue created the order without our client order id and the client canceled it by its
   * exchange id: the journal records what the exchange last said (canceled, or open with its order id
   * when the cancel failed, so the reconciler still finds it by that id), and ClientOrderIdIgnored
   * tells the daemon to halt. The intent counts as rejected: nothing it asked for rests under its id.
   */
  private async contained(records: readonly OrderRecord[], err: ClientOrderIdIgnoredError): Promise<SendOutcome> {
    const out: OrderRecord[] = [];
    for (const record of records) {
      const report = err.legs[record.kind === 'oco_tp' ? 1 : 0];
      try {
        out.push(report === undefined ? record : (await applyReport(this.store, this.events, record, report, err.ocoId)).record);
      } catch (writeError) {
        out.push(record);
        safeEmit(this.events, { type: 'JournalWriteFailed', clientOrderId: record.clientOrderId, error: describe(writeError) });
      }
    }
    safeEmit(this.events, {
      type: 'ClientOrderIdIgnored', clientOrderId: first(records).clientOrderId, market: first(records).market,
      canceled: err.context['canceled'] === true, reason: err.message,
    });
    return { outcome: 'rejected', records: out, reason: describe(err) };
  }

  /** A transition whose failure must not hide the exchange's answer (the reconciler catches up). */
  private async transitionSafely(record: OrderRecord, event: 'reject' | 'lose_answer', reason: string, code?: string): Promise<OrderRecord> {
    try {
      const updated = await this.store.transition(record.clientOrderId, event, { reason }, { expectedStatus: record.status });
      // lose_answer already announced itself (OrderAnswerLost)
      if (event === 'reject') {
        safeEmit(this.events, code === undefined
          ? { type: 'OrderRejected', clientOrderId: record.clientOrderId, reason }
          : { type: 'OrderRejected', clientOrderId: record.clientOrderId, reason, code });
      }
      return updated;
    } catch (err) {
      if (!(err instanceof InvalidTransitionError || err instanceof StaleStateError)) {
        safeEmit(this.events, { type: 'JournalWriteFailed', clientOrderId: record.clientOrderId, error: describe(err) });
      }
      return record;
    }
  }
}

/**
 * HTTP 453: the venue does not offer this order type here (its EU region refuses stop-limit and OCO;
 * also a market not yet listed). Every later order would be refused the same way: the daemon halts.
 */
const ORDER_TYPE_NOT_AVAILABLE = 453;

function first(records: readonly OrderRecord[]): OrderRecord {
  return records[0] as OrderRecord;
}

function describe(err: unknown): string {
  if (err instanceof TradebotError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}
