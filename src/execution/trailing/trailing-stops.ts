import type { Clock } from '../../core/clock';
import { deriveClientOrderId } from '../../core/client-order-id';
import type { Candle, Interval } from '../../domain/candle';
import { Decimal } from '../../domain/decimal';
import type { CancelIntent, StopLimitIntent, TrailingStopIntent } from '../../domain/intent';
import type { MarketInfo, MarketName } from '../../domain/market';
import { FINAL_STATUSES } from '../../domain/order-state';
import type { OrderRecord, OrderStore } from '../../store/order-store-port';
import { MAX_TRAILING_MOVES, type TrailingLegPlacement, type TrailingStopRecord, type TrailingStore } from '../../store/trailing-store-port';
import type { StampedIntent } from '../../strategy/intent-validation';
import type { SubmitResult, TrailingRoute } from '../orders/executor';
import { roundActivationPrice } from '../../domain/rounding';
import { decideTrail, initialStop, type RoundTrigger, type TrailSpec } from './trailing-decision';

/** What the manager tells its observers (metrics, logs, the backtest's order log). */
export type TrailingEvent =
  | { readonly type: 'placed' | 'moved'; readonly record: TrailingStopRecord; readonly leg: TrailingLegPlacement; readonly result: SubmitResult; readonly atMs: number }
  | { readonly type: 'ended'; readonly record: TrailingStopRecord; readonly reason: string }
  /** A move not made: the risk gate would refuse the next leg (the resting one stays). */
  | { readonly type: 'held'; readonly record: TrailingStopRecord; readonly reason: string };

/** The executor's two doors the manager uses: a leg's stop-limit (through risk, journal, send) and a cancel of one leg. */
export interface LegPort {
  submitLeg(stamped: StampedIntent): Promise<SubmitResult>;
  cancelLeg(strategy: string, intent: CancelIntent): Promise<SubmitResult>;
  /**
   * Why the risk gate would refuse this leg now (undefined: it would pass). Asked before a move cancels
   * the resting leg: a halt or a guardrail must never leave a position without its stop.
   */
  wouldRefuse?(stamped: StampedIntent): Promise<string | undefined>;
}

export interface TrailingStopsDeps {
  readonly store: TrailingStore;
  readonly orders: Pick<OrderStore, 'get'>;
  readonly legs: LegPort;
  readonly markets: { get(name: MarketName): Promise<MarketInfo | undefined> };
  /** Wall time of the journal's writes. */
  readonly clock: Clock;
  /** Market time of a move (the backtest's order log, the daemon's logs). */
  readonly marketClock: Clock;
  readonly onEvent?: ((e: TrailingEvent) => void) | undefined;
  /**
   * Test only (docs/trailing-stops.md, "Crash safety"): called after a move is journaled and its old
   * leg is known cancelled, right before the new leg is submitted. The daemon sets it only from
   * TRADEBOT_TEST_TRAILING_KILL_BEFORE_LEG.
   */
  readonly beforeLegSubmit?: ((record: TrailingStopRecord) => void) | undefined;
}

/** A leg whose order never reached the venue (journaled, then found missing) is retried under the next number, at most this often per move. */
const MAX_LEG_RETRIES = 3;

/** The tag of leg n > 0: the intent's tag with the leg number, so every leg has its own deterministic client order id. */
export function legTag(tag: string | undefined, leg: number): string | undefined {
  return leg === 0 ? tag : `${tag ?? ''}#t${leg}`;
}

/** Client order id of leg `leg` of a trailing stop placed by (strategy, market, candleTime, tag). */
export function legClientOrderId(r: Pick<TrailingStopRecord, 'strategy' | 'market' | 'candleTime' | 'tag'>, leg: number): string {
  return deriveClientOrderId({ strategy: r.strategy, market: r.market, candleTime: r.candleTime, tag: legTag(r.tag, leg), leg: 'o' });
}

/**
 * Trailing stops (TrailingStopIntent), the same code in backtests, paper and live: a logical order
 * whose legs are ordinary stop-limit orders, moved on each closed candle of its strategy's interval
 * (`onCandle`, called by THE candle step after settlement and before the strategies decide).
 *
 * A move, in this order: journal it (phase `moving`, next leg named) -> cancel the resting leg and wait
 * for the answer -> if it executed meanwhile, the trailing stop ends -> else submit the next leg (its
 * client order id derived from the logical order and the leg number: a resend is found in the order
 * journal, never sent twice) -> journal it `resting`. A leg is never submitted before the previous one
 * is known cancelled, so two legs never rest at once; a crash anywhere is finished by `recover`.
 *
 * Active records are kept in memory (one writer per (strategy, market): the lease holder), so a
 * candle without a trailing stop on its market costs nothing.
 */
export class TrailingStops implements TrailingRoute {
  private readonly active = new Map<string, TrailingStopRecord>();
  /** The newest closed candle per (market, interval): a new stop starts from its close. */
  private readonly lastCandle = new Map<string, Candle>();

  constructor(private readonly d: TrailingStopsDeps) {}

  /**
   * Start-up (after the first reconciliation): reads the active trailing stops. A move a crash
   * interrupted is finished on the first settled candle of its market (`onCandle`, before the
   * strategies decide), not here: the new leg's risk checks need the market's last price, which a
   * starting daemon learns from that candle. Until then the old leg rests, if it was not yet cancelled.
   */
  async recover(): Promise<void> {
    for (const r of await this.d.store.listActive()) this.active.set(r.id, r);
  }

  /** Active trailing stops (tests, status). */
  list(): readonly TrailingStopRecord[] {
    return [...this.active.values()];
  }

  /**
   * A closed candle of (market, interval), settled: every trailing stop of that interval on the market
   * takes its high or low and moves if it can. Undefined (no promise) when none rests there.
   * Resolves true when any journal record changed (the caller refreshes its views).
   */
  onCandle(market: MarketName, interval: Interval, candle: Candle): Promise<boolean> | undefined {
    this.lastCandle.set(`${market}|${interval}`, candle);
    let mine: TrailingStopRecord[] | undefined;
    for (const r of this.active.values()) {
      if (r.market === market && r.interval === interval) (mine ??= []).push(r);
    }
    if (mine === undefined) return undefined;
    return (async () => {
      let changed = false;
      for (const r of mine) changed = (await this.advance(r, candle)) || changed;
      return changed;
    })();
  }

  /** A strategy's trailing_stop intent: the logical order journaled, then leg 0 submitted. Leg 0's result is the intent's. */
  async place(stamped: StampedIntent): Promise<SubmitResult> {
    const intent = stamped.intent as TrailingStopIntent;
    const id = deriveClientOrderId({ strategy: stamped.strategy, market: intent.market, candleTime: stamped.candleTime, tag: intent.tag, leg: 'o' });
    const known = this.active.get(id) ?? (await this.d.store.get(id));
    if (known !== undefined) return this.d.legs.submitLeg(legIntent(known, known.moves[0] ?? known.leg, new Decimal(known.remaining)));
    const candle = this.lastCandle.get(`${intent.market}|${stamped.interval}`);
    if (candle === undefined || candle.time !== stamped.candleTime) {
      return { outcome: 'denied', rule: 'trailing_reference', reason: `no settled ${stamped.interval} candle at ${stamped.candleTime} on ${intent.market} to start the trailing stop from` };
    }
    const spec: TrailSpec = { side: intent.side, trail: intent.trail, step: intent.step, limitOffset: intent.limitOffset };
    const first = initialStop(spec, candle.close, await this.rounder(intent.market, intent.side));
    if (first === undefined) {
      return { outcome: 'denied', rule: 'trailing_distance', reason: `trail ${intent.trail.toString()} from the close ${candle.close.toString()} gives no positive trigger and limit price` };
    }
    const leg: TrailingLegPlacement = { leg: 0, clientOrderId: id, candleTime: stamped.candleTime, trigger: first.trigger.toString(), price: first.price.toString() };
    let record: TrailingStopRecord = {
      id, strategy: stamped.strategy, market: intent.market, interval: stamped.interval, side: intent.side, remaining: intent.amount.toString(),
      trail: intent.trail.toString(), step: intent.step.toString(), limitOffset: intent.limitOffset.toString(), purpose: intent.purpose ?? 'exit',
      tag: intent.tag, candleTime: stamped.candleTime, strategyVersion: stamped.identity?.version, strategyParams: stamped.identity?.params,
      best: candle.close.toString(), phase: 'placing', leg, moves: [], updatedAtMs: this.d.clock.nowMs(),
    };
    await this.save(record);
    const result = await this.d.legs.submitLeg(legIntent(record, leg, intent.amount));
    if (result.outcome === 'denied' || result.outcome === 'rejected') {
      await this.end(record, `leg 0 ${result.outcome}: ${result.outcome === 'denied' ? result.rule : result.reason}`);
      return result;
    }
    record = { ...record, phase: 'resting', moves: [leg], updatedAtMs: this.d.clock.nowMs() };
    await this.save(record);
    this.d.onEvent?.({ type: 'placed', record, leg, result, atMs: this.d.marketClock.nowMs() });
    return result;
  }

  /**
   * A cancel intent naming a trailing stop (its id, or the client order id of its current leg): the
   * trailing ends (journaled first, so nothing moves it again) and its resting legs are cancelled.
   * Undefined when the id is no trailing stop's: the executor cancels the order itself.
   */
  async cancel(strategy: string, intent: CancelIntent): Promise<SubmitResult | undefined> {
    const record = this.active.get(intent.clientOrderId)
      ?? [...this.active.values()].find((r) => r.leg.clientOrderId === intent.clientOrderId || r.next?.clientOrderId === intent.clientOrderId);
    if (record === undefined || record.strategy !== strategy || record.market !== intent.market) return undefined;
    await this.end(record, 'cancelled by the strategy');
    let result: SubmitResult | undefined;
    for (const leg of [record.leg, record.next]) {
      if (leg === undefined) continue;
      const order = await this.d.orders.get(leg.clientOrderId);
      if (order === undefined || FINAL_STATUSES.has(order.status)) continue;
      result = await this.d.legs.cancelLeg(strategy, { kind: 'cancel', market: record.market, clientOrderId: leg.clientOrderId });
    }
    return result ?? { outcome: 'existing', records: [] };
  }

  /** One candle for one trailing stop; true when the journal changed. */
  private async advance(start: TrailingStopRecord, candle: Candle): Promise<boolean> {
    let record = start;
    const interrupted = record.phase !== 'resting';
    if (interrupted) {
      record = await this.finish(record);
      if (record.phase !== 'resting') return true;
    }
    const order = await this.d.orders.get(record.leg.clientOrderId);
    if (order !== undefined && FINAL_STATUSES.has(order.status)) {
      await this.end(record, order.status === 'filled' ? 'filled' : `leg ${record.leg.leg} ${order.status}`);
      return true;
    }
    const spec = specOf(record);
    const decision = decideTrail(spec, { best: new Decimal(record.best), trigger: new Decimal(record.leg.trigger) }, candle, await this.rounder(record.market, record.side));
    // Only an untouched resting stop moves: a triggered or partly executed one is working the exit.
    const movable = order !== undefined && order.status === 'open' && new Decimal(order.filledAmount).isZero();
    if (decision.move === undefined || !movable) {
      if (decision.best.equals(record.best)) return interrupted;
      await this.save({ ...record, best: decision.best.toString(), updatedAtMs: this.d.clock.nowMs() });
      return interrupted;
    }
    const n = record.leg.leg + 1;
    const next: TrailingLegPlacement = {
      leg: n, clientOrderId: legClientOrderId(record, n), candleTime: candle.time, trigger: decision.move.trigger.toString(), price: decision.move.price.toString(),
    };
    const refused = await this.d.legs.wouldRefuse?.(legIntent(record, next, new Decimal(record.remaining)));
    if (refused !== undefined) {
      // The resting stop keeps protecting the position; the move is tried again on a later candle.
      this.d.onEvent?.({ type: 'held', record, reason: refused });
      if (decision.best.equals(record.best)) return interrupted;
      await this.save({ ...record, best: decision.best.toString(), updatedAtMs: this.d.clock.nowMs() });
      return interrupted;
    }
    record = { ...record, best: decision.best.toString(), phase: 'moving', next, updatedAtMs: this.d.clock.nowMs() };
    await this.save(record); // the move is journaled before anything is cancelled
    await this.finish(record);
    return true;
  }

  /**
   * Finishes a move (or a placement) from whatever point it reached: the old leg cancelled and known
   * ended, then the new one submitted. Returns the record as journaled afterwards; still `moving` when
   * the old leg's end is not known yet (the next candle tries again: never two legs resting).
   */
  private async finish(start: TrailingStopRecord): Promise<TrailingStopRecord> {
    let record = start;
    if (record.phase === 'placing') {
      // Leg 0 was journaled as the intent's; its record (or its absence) says what became of it.
      const result = await this.d.legs.submitLeg(legIntent(record, record.leg, new Decimal(record.remaining)));
      if (result.outcome === 'denied' || result.outcome === 'rejected') return this.end(record, `leg 0 ${result.outcome}`);
      record = { ...record, phase: 'resting', moves: [record.leg], updatedAtMs: this.d.clock.nowMs() };
      await this.save(record);
      return record;
    }
    if (record.phase !== 'moving' || record.next === undefined) return record;
    let old = await this.d.orders.get(record.leg.clientOrderId);
    if (old !== undefined && !FINAL_STATUSES.has(old.status)) {
      await this.d.legs.cancelLeg(record.strategy, { kind: 'cancel', market: record.market, clientOrderId: record.leg.clientOrderId });
      old = await this.d.orders.get(record.leg.clientOrderId);
    }
    if (old !== undefined && !FINAL_STATUSES.has(old.status)) return record; // cancel unanswered: settled later, retried next candle
    if (old?.status === 'filled') return this.end(record, 'filled');
    const remaining = new Decimal(record.remaining).minus(old?.filledAmount ?? 0);
    if (!remaining.greaterThan(0)) return this.end(record, 'filled');
    let next = record.next;
    for (let attempt = 0; ; attempt++) {
      this.d.beforeLegSubmit?.({ ...record, remaining: remaining.toString() });
      const result = await this.d.legs.submitLeg(legIntent(record, next, remaining));
      if (result.outcome === 'denied') return this.end(record, `leg ${next.leg} denied (${result.rule}): ${result.reason}`);
      if (result.outcome === 'rejected') return this.end(record, `leg ${next.leg} rejected: ${result.reason}`);
      const sent = result.records[0];
      if (result.outcome === 'existing' && neverReachedVenue(sent) && attempt < MAX_LEG_RETRIES) {
        // Journaled by a run that died before sending it, since found missing: the next number takes its place.
        const n = next.leg + 1;
        next = { ...next, leg: n, clientOrderId: legClientOrderId(record, n) };
        record = { ...record, next, updatedAtMs: this.d.clock.nowMs() };
        await this.save(record);
        continue;
      }
      const moves = [...record.moves, next].slice(-MAX_TRAILING_MOVES);
      record = { ...record, phase: 'resting', leg: next, next: undefined, remaining: remaining.toString(), moves, updatedAtMs: this.d.clock.nowMs() };
      await this.save(record);
      this.d.onEvent?.({ type: 'moved', record, leg: next, result, atMs: this.d.marketClock.nowMs() });
      return record;
    }
  }

  private async end(record: TrailingStopRecord, reason: string): Promise<TrailingStopRecord> {
    const ended: TrailingStopRecord = { ...record, phase: 'ended', endReason: reason, updatedAtMs: this.d.clock.nowMs() };
    await this.save(ended);
    this.d.onEvent?.({ type: 'ended', record: ended, reason });
    return ended;
  }

  private async save(record: TrailingStopRecord): Promise<void> {
    await this.d.store.put(record);
    if (record.phase === 'ended') this.active.delete(record.id);
    else this.active.set(record.id, record);
  }

  private async rounder(market: MarketName, side: 'buy' | 'sell'): Promise<RoundTrigger> {
    const info = await this.d.markets.get(market);
    return info === undefined ? (t) => t : (t) => roundActivationPrice(t, side, info);
  }
}

function specOf(r: TrailingStopRecord): TrailSpec {
  return { side: r.side, trail: new Decimal(r.trail), step: new Decimal(r.step), limitOffset: new Decimal(r.limitOffset) };
}

/** The stop-limit intent of one leg, stamped with the logical order's candle (so its id is the leg's derived one). */
function legIntent(r: TrailingStopRecord, leg: TrailingLegPlacement, amount: Decimal): StampedIntent {
  const tag = legTag(r.tag, leg.leg);
  const intent: StopLimitIntent = {
    kind: 'stop_limit', market: r.market, side: r.side, amount, price: new Decimal(leg.price), activationPrice: new Decimal(leg.trigger), purpose: r.purpose,
    ...(tag === undefined ? {} : { tag }),
  };
  const identity = r.strategyVersion === undefined || r.strategyParams === undefined ? undefined : { version: r.strategyVersion, params: r.strategyParams };
  return { strategy: r.strategy, interval: r.interval, candleTime: r.candleTime, intent, ...(identity === undefined ? {} : { identity }) };
}

/** A leg journaled but settled as never having reached the venue (no order id, nothing executed). */
function neverReachedVenue(r: OrderRecord | undefined): boolean {
  return r !== undefined && r.status === 'rejected' && r.orderId === undefined && r.filledAmount === '0';
}
