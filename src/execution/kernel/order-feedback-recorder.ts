import { Decimal } from '../../domain/decimal';
import type { ExecutionEvent, ExecutionEvents } from '../journal/events';
import { exchangeClientOrderId } from '../journal/oco-ids';
import type { OrderRecord, OrderStore } from '../../store/order-store-port';
import type { Portfolio } from '../../portfolio/portfolio';
import { OrderFeedback, type OcoLeg } from '../../strategy/order-feedback';

/** Fill totals of one journal record already told to its strategy. */
interface Told {
  readonly amount: Decimal;
  readonly money: Decimal;
  readonly fee: Decimal;
  /** The record's filledAmount text `amount` was built from. */
  readonly amountText: string;
}

/** Records remembered for fill deltas; the oldest are forgotten first. */
const MAX_TOLD = 20_000;
const ZERO = new Decimal(0);
const NOTHING: Told = { amount: ZERO, money: ZERO, fee: ZERO, amountText: '0' };

/**
 * The daemon's side of ctx.events and ctx.position: execution events -> OrderFeedback. A fill,
 * cancel, rejection or trigger reads the journal record (strategy, market, kind, cumulative filled
 * amount and money), and what strategies are told is the increase since the last time: several
 * executions between two settlements become one event at their average price (filledMoney /
 * filledAmount), and an event seen twice, or out of order, tells nothing twice. The candle flow
 * awaits `idle()` before a candle goes to the strategies, so what was settled is in their ctx.
 */
export class OrderFeedbackRecorder implements ExecutionEvents {
  readonly feedback: OrderFeedback;
  private readonly told = new Map<string, Told>();
  private readonly pending = new Set<Promise<void>>();

  /** Every fill it reads goes into `portfolio` (positions and PnL) through the feedback. */
  constructor(private readonly store: Pick<OrderStore, 'get'>, portfolio: Portfolio, private readonly onError: (err: unknown) => void = () => undefined) {
    this.feedback = new OrderFeedback(portfolio);
  }

  emit(e: ExecutionEvent): void {
    switch (e.type) {
      case 'OrderDenied':
        this.feedback.denied(e.strategy, e.market, e.rule, e.reason);
        return;
      case 'OrderFilled':
      case 'OrderPartiallyFilled':
      case 'OrderCanceled':
      case 'OrderRejected':
      case 'OrderTriggered': {
        const type = e.type;
        const p: Promise<void> = this.store.get(e.clientOrderId)
          .then((record) => { if (record !== undefined) this.apply(type, record); })
          .catch(this.onError)
          .finally(() => this.pending.delete(p));
        this.pending.add(p);
        return;
      }
      default:
    }
  }

  /** Journal reads started and not yet applied. */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** Resolves once every journal read started so far has been applied. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /**
   * Positions from the journal at start-up (fills of orders recorded before this process), so a
   * restart does not tell a strategy it is flat while it holds stock. No events.
   */
  seed(records: readonly OrderRecord[]): void {
    const sorted = [...records].sort((a, b) => a.createdAtMs - b.createdAtMs);
    for (const r of sorted) this.fillDelta(r, false);
  }

  private apply(type: ExecutionEvent['type'], r: OrderRecord): void {
    const leg = legOf(r);
    const id = exchangeClientOrderId(r);
    this.fillDelta(r, true);
    if (type === 'OrderCanceled') {
      this.feedback.cancelled({ strategy: r.strategy, market: r.market, clientOrderId: id, filledAmount: new Decimal(r.filledAmount), leg });
    } else if (type === 'OrderRejected' && r.kind !== 'oco_tp') {
      // An OCO is rejected as a whole: told once, by its stop-loss leg (the one whose id it carries).
      this.feedback.rejected(r.strategy, r.market, id, r.reason ?? 'rejected');
    } else if (type === 'OrderTriggered' && leg !== undefined) {
      this.feedback.triggered(id, leg);
    }
  }

  private fillDelta(r: OrderRecord, tell: boolean): void {
    const before = this.told.get(r.clientOrderId) ?? NOTHING;
    // The same text as last time is the same amount: nothing new (most events: placed, cancelled
    // unfilled, triggered), and no Decimal built to find that out.
    if (r.filledAmount === before.amountText) return;
    const now: Told = { amount: new Decimal(r.filledAmount), money: new Decimal(r.filledMoney), fee: new Decimal(r.fee), amountText: r.filledAmount };
    const amount = now.amount.minus(before.amount);
    if (!amount.greaterThan(0)) return;
    if (this.told.size >= MAX_TOLD && !this.told.has(r.clientOrderId)) this.told.delete(this.told.keys().next().value as string);
    this.told.set(r.clientOrderId, now);
    const money = now.money.minus(before.money);
    // The venue's deal money gives the average price; a journal without it (older records) the limit price.
    const price = money.greaterThan(0) ? money.dividedBy(amount) : new Decimal(r.kind === 'oco_sl' ? r.stopLimitPrice ?? r.price : r.price);
    const fill = {
      strategy: r.strategy, market: r.market, clientOrderId: exchangeClientOrderId(r), side: r.side, amount, price,
      fee: Decimal.max(now.fee.minus(before.fee), 0), filledAmount: now.amount, complete: now.amount.greaterThanOrEqualTo(r.amount), leg: legOf(r),
    };
    if (tell) this.feedback.fill(fill);
    else this.feedback.seedFill(fill);
  }
}

function legOf(r: OrderRecord): OcoLeg | undefined {
  return r.kind === 'oco_sl' ? 'stop_loss' : r.kind === 'oco_tp' ? 'take_profit' : undefined;
}
