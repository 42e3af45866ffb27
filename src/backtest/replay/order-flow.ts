import type { Clock } from '../../core/clock';
import type { Decimal } from '../../domain/decimal';
import { ExchangeRejectedError } from '../../domain/errors';
import type { CancelIntent, OcoIntent, StopLimitIntent } from '../../domain/intent';
import type { MarketInfo, MarketName } from '../../domain/market';
import type { OrderSide } from '../../domain/order';
import { prepareOrder } from '../../execution/prepare-order';
import type { SimEngine } from '../../simulator/engine/sim-engine';
import type { EngineEvent } from '../../simulator/engine/types';
import type { StampedIntent } from '../../strategy/intent-validation';
import type { BacktestFill } from './backtest-fill';
import type { AccountView } from './account-view';
import type { OrderJournal } from './order-journal';
import type { RealizedPnl } from './realized-pnl';
import type { RiskGate } from '../../execution/risk-gate';
import type { OrderFeedback } from '../../strategy/order-feedback';

/** What happened to one intent (the order log of the run; the parity test compares it with paper mode). */
export interface OrderLogEntry {
  /** Market clock (Unix s) when the intent was handled. */
  readonly time: number;
  readonly candleTime: number;
  readonly strategy: string;
  readonly market: MarketName;
  readonly kind: 'stop_limit' | 'oco' | 'cancel';
  readonly clientOrderId: string | undefined;
  readonly side?: OrderSide | undefined;
  /** Rounded values, as sent. */
  readonly amount?: Decimal | undefined;
  readonly price?: Decimal | undefined;
  readonly activationPrice?: Decimal | undefined;
  readonly stopLimitPrice?: Decimal | undefined;
  /** placed / canceled: done; denied: a pre-trade rule (no order); rejected: the engine said no; existing: cancel of a finished order. */
  readonly outcome: 'placed' | 'canceled' | 'denied' | 'rejected' | 'existing';
  /** denied: the pre-trade rule; rejected: the error code (TB_ERR_...). */
  readonly rule?: string | undefined;
  /** Why, in words; for a rejection the venue's message with its field errors ("Inner validation failed: activation_price: ..."). */
  readonly reason?: string | undefined;
  /** rejected: the venue's error code (exchange-api-extra §3), e.g. 152. */
  readonly venueCode?: number | undefined;
}

/** A venue rejection in one line: its message and every field error, as the report explains it. */
export function rejectionReason(err: ExchangeRejectedError): string {
  const fields = Object.entries(err.fieldErrors).map(([field, texts]) => `${field}: ${texts.join(' ')}`);
  return fields.length === 0 ? err.message : `${err.message}: ${fields.join('; ')}`;
}

export interface OrderFlowDeps {
  readonly engine: SimEngine;
  readonly apiKey: string;
  readonly clock: Clock;
  readonly markets: ReadonlyMap<MarketName, MarketInfo>;
  readonly risk: RiskGate;
  readonly journal: OrderJournal;
  readonly account: AccountView;
  readonly pnl: RealizedPnl;
  /** Realised PnL of a fill goes to the risk engine's daily loss limit. */
  readonly onRealized: (amount: Decimal, timeMs: number) => void;
  /** What strategies are told about their orders (ctx.events, ctx.position). */
  readonly feedback: OrderFeedback;
}

/**
 * The executor's order flow without HTTP or Redis: intent -> market -> pre-trade risk -> rounding,
 * size limits and balance (`prepareOrder`, the executor's own code) -> engine placeStopLimit /
 * placeOco / cancel. The engine's fills come back through `onEngineEvent`: they update the journal
 * (open orders for ctx and risk), the balance snapshot and the realised PnL for the daily loss limit.
 */
export class OrderFlow {
  readonly log: OrderLogEntry[] = [];
  readonly fills: BacktestFill[] = [];

  constructor(private readonly d: OrderFlowDeps) {}

  submitAll(intents: readonly StampedIntent[]): void {
    for (let i = 0; i < intents.length; i++) this.submit(intents[i] as StampedIntent);
  }

  submit(stamped: StampedIntent): void {
    const intent = stamped.intent;
    if (intent.kind === 'cancel') {
      this.cancel(stamped, intent);
      return;
    }
    // Object literals throughout (no spreads): this runs for every order of a backtest.
    const time = this.now();
    const market = this.d.markets.get(intent.market);
    if (market === undefined || !market.tradesEnabled) {
      this.deny(stamped, time, 'market', `market ${intent.market} is not listed or not trading`);
      return;
    }
    const verdict = this.d.risk.check(stamped, market);
    if (!verdict.ok) {
      this.deny(stamped, time, verdict.rule, verdict.reason);
      return;
    }
    const prepared = prepareOrder(stamped, market, this.d.account);
    if (!prepared.ok) {
      this.deny(stamped, time, prepared.rule, prepared.reason);
      return;
    }
    const order = prepared.order;
    const cid = order.sentClientOrderId;
    const sent = order.intent;
    const stopLimitPrice = sent.kind === 'oco' ? sent.stopLimitPrice : undefined;
    const logEntry = (outcome: 'placed' | 'rejected', rule?: string, reason?: string, venueCode?: number): OrderLogEntry => ({
      time, candleTime: stamped.candleTime, strategy: stamped.strategy, market: intent.market, kind: intent.kind, side: intent.side,
      clientOrderId: cid, amount: sent.amount, price: sent.price, activationPrice: sent.activationPrice, stopLimitPrice, outcome, rule, reason, venueCode,
    });
    const view = {
      clientOrderId: cid, strategy: stamped.strategy, market: intent.market, side: sent.side, kind: sent.kind,
      amount: sent.amount, price: sent.price, activationPrice: sent.activationPrice,
      stopLimitPrice, purpose: sent.purpose, candleTime: stamped.candleTime,
    };
    try {
      // The log entry goes first: a stop that triggers and fills on arrival reports its fill during the call.
      this.log.push(logEntry('placed'));
      if (sent.kind === 'stop_limit') {
        const placed = this.d.engine.placeStopLimit(this.d.apiKey, {
          market: sent.market, side: sent.side, amount: sent.amount, price: sent.price, activationPrice: sent.activationPrice, clientOrderId: cid,
        });
        this.d.journal.addOrder(view, placed);
      } else {
        const placed = this.d.engine.placeOco(this.d.apiKey, {
          market: sent.market, side: sent.side, amount: sent.amount, price: sent.price, activationPrice: sent.activationPrice,
          stopLimitPrice: sent.stopLimitPrice, clientOrderId: cid,
        });
        this.d.journal.addOco(view, placed);
      }
    } catch (err) {
      if (!(err instanceof ExchangeRejectedError)) throw err;
      const reason = rejectionReason(err);
      this.log[this.log.length - 1] = logEntry('rejected', err.code, reason, err.venueCode);
      this.d.feedback.rejected(stamped.strategy, intent.market, cid, reason);
    }
    this.d.account.touch();
  }

  private deny(stamped: StampedIntent, time: number, rule: string, reason: string): void {
    const intent = stamped.intent as StopLimitIntent | OcoIntent;
    this.log.push({
      time, candleTime: stamped.candleTime, strategy: stamped.strategy, market: intent.market, kind: intent.kind, side: intent.side,
      clientOrderId: undefined, amount: intent.amount, price: intent.price, outcome: 'denied', rule, reason,
    });
    this.d.feedback.denied(stamped.strategy, intent.market, rule, reason);
  }

  /** Every engine event of our account: fills are recorded and fed back. */
  onEngineEvent(event: EngineEvent): void {
    const order = event.order;
    if (order.apiKey !== this.d.apiKey) return;
    this.d.account.touch();
    if (event.type === 'filled') {
      const deal = event.deal;
      this.fills.push({
        time: deal.time, market: deal.market, side: deal.side, amount: deal.amount, price: deal.price, fee: deal.fee,
        clientOrderId: deal.clientOrderId, role: deal.role === 1 ? 'maker' : 'taker',
        // Both OCO legs carry the OCO's client order id: the leg is told by its type (the stop-loss leg is the stop order).
        orderKind: order.ocoId === undefined ? 'stop_limit' : order.activationPrice === undefined ? 'oco_take_profit' : 'oco_stop_loss',
      });
      const realized = this.d.pnl.onFill(deal.market, deal.side, deal.amount, deal.price, deal.fee, deal.deal);
      if (!realized.isZero()) this.d.onRealized(realized, deal.time * 1000);
    }
    this.tell(event);
    this.d.journal.refresh(order.clientOrderId);
  }

  /** The strategy's ctx.events and ctx.position (both OCO legs carry the OCO's client order id). */
  private tell(event: EngineEvent): void {
    if (event.type === 'triggered') return;
    const order = event.order;
    const view = this.d.journal.viewOf(order.clientOrderId);
    if (view === undefined) return;
    const leg = order.ocoId === undefined ? undefined : order.activationPrice === undefined ? 'take_profit' as const : 'stop_loss' as const;
    if (event.type === 'filled') {
      const deal = event.deal;
      this.d.feedback.fill({
        strategy: view.strategy, market: view.market, clientOrderId: view.clientOrderId, side: deal.side, amount: deal.amount,
        price: deal.price, fee: deal.fee, filledAmount: order.dealStock, complete: order.left.isZero(), leg,
      });
    } else {
      this.d.feedback.cancelled({
        strategy: view.strategy, market: view.market, clientOrderId: view.clientOrderId, filledAmount: order.dealStock, leg, byOcoRule: event.reason === 'oco',
      });
    }
  }

  private cancel(stamped: StampedIntent, intent: CancelIntent): void {
    const time = this.now();
    const entry = (outcome: OrderLogEntry['outcome'], rule?: string, reason?: string, venueCode?: number): OrderLogEntry => ({
      time, candleTime: stamped.candleTime, strategy: stamped.strategy, market: intent.market, kind: 'cancel',
      clientOrderId: intent.clientOrderId, outcome, rule, reason, venueCode,
    });
    const status = this.d.journal.status(intent.clientOrderId, stamped.strategy, intent.market);
    if (status === 'unknown') {
      const reason = `no order ${intent.clientOrderId} of ${stamped.strategy} on ${intent.market}`;
      this.log.push(entry('denied', 'cancel_unknown', reason));
      this.d.feedback.denied(stamped.strategy, intent.market, 'cancel_unknown', reason);
      return;
    }
    if (status === 'final') {
      this.log.push(entry('existing'));
      return;
    }
    this.log.push(entry('canceled'));
    try {
      const ref = { clientOrderId: intent.clientOrderId };
      if (this.d.journal.kind(intent.clientOrderId) === 'oco') this.d.engine.cancelOco(this.d.apiKey, intent.market, ref);
      else this.d.engine.cancelOrder(this.d.apiKey, intent.market, ref);
    } catch (err) {
      if (!(err instanceof ExchangeRejectedError)) throw err;
      this.log[this.log.length - 1] = entry('rejected', err.code, rejectionReason(err), err.venueCode);
    }
  }

  private now(): number {
    return this.d.clock.nowMs() / 1000;
  }
}
