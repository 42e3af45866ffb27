import { hostname } from 'node:os';
import { SystemClock, type Clock } from '../core/clock';
import type { TradingState } from './trading-state';
import { isLater, type StoredPosition, type TradingStateChange, type TradingStateStore } from './trading-state-store';

/** The only state the daemon sets by itself (signals, automatic halts): it may make things safer, never riskier. */
export type DaemonTradingState = Extract<TradingState, 'halted'>;

/**
 * Where the state takes effect: the RiskEngine (risk/ sits above this room and depends on the
 * states defined here, so the control names only the two members it uses).
 */
export interface TradingStateTarget {
  readonly tradingState: TradingState;
  setTradingState(next: TradingState, reason: string): void;
}

/** The pino-compatible subset the control logs with (log/ sits above this room). */
export interface TradingStateLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** A change of the trading state as applied by one daemon; `id` is the same on every replica for a stored record. */
export interface AppliedTradingStateChange {
  readonly id: string;
  readonly state: TradingState;
  readonly previous: TradingState;
  readonly reason: string;
  readonly atMs: number;
}

const NOTHING_APPLIED: StoredPosition = { seq: 0, epoch: '' };

/**
 * Keeps the RiskEngine's trading state in line with the operator's: `tradebot pause|resume|
 * reduce-only` writes the store (a Redis hash, or a file without Redis), this class reads it every
 * second (job `trading-state`) and reports what it applied, which the CLI waits for. SIGUSR1 and
 * the automatic halts (clock guard, echo guard) go through `halt()`; nothing in the process can
 * resume trading: only a record written to the store can.
 *
 * Records are ordered by the seq the store allocated, never by clocks: a record is applied when
 * its seq is larger than the last one applied (or the store started over: another epoch).
 *
 * At start-up the STORED state wins: a restart (crash, deploy, pm2 reload) comes back in the state
 * the operator (or a halt) last set. `risk.initialState` applies only when nothing is stored: the
 * first start of a deployment, or after the store lost its data (then a live config's `halted`
 * keeps it from trading until someone checked).
 */
export class TradingStateControl {
  private applied: StoredPosition = NOTHING_APPLIED;
  /** A halt applied here but not stored yet (store unavailable): stored at the next poll. */
  private unstored: TradingStateChange | undefined;
  private readonly listeners: ((change: AppliedTradingStateChange) => void)[] = [];
  private readonly resumeListeners: (() => void)[] = [];

  constructor(
    private readonly engine: TradingStateTarget,
    private readonly store: TradingStateStore,
    private readonly log: TradingStateLog,
    readonly instance: string = `${hostname()}:${process.pid}`,
    private readonly clock: Clock = new SystemClock(),
  ) {}

  async init(initial: TradingState): Promise<TradingState> {
    const stored = await this.store.read();
    let state = initial;
    let reason = 'config risk.initialState';
    if (stored !== undefined) {
      this.applied = { seq: stored.seq, epoch: stored.epoch };
      state = stored.state;
      reason = `restored: ${stored.reason || 'no reason given'}`;
    }
    this.engine.setTradingState(state, reason);
    this.log.info({ state, reason, stored: stored?.state, seq: stored?.seq }, 'trading state at start');
    await this.report().catch((err: unknown) => this.log.warn({ err }, 'applied trading state not reported (store unavailable)'));
    return state;
  }

  /** Applies a record stored after the last one applied, then reports (job `trading-state`, every second). */
  async sync(): Promise<void> {
    await this.storeUnstored();
    const stored = await this.store.read();
    if (stored !== undefined && isLater(stored, this.applied)) {
      this.applied = { seq: stored.seq, epoch: stored.epoch };
      this.apply(stored.state, `operator: ${stored.reason || 'no reason given'}`, stored.seq);
      // A resume is news even when trading was already active: it lifts the account's guardrails.
      if (stored.state === 'active') for (const listener of this.resumeListeners) listener();
    }
    await this.report();
  }

  /**
   * Halts at once and stores it with the store's next seq (signal SIGUSR1, automatic halts), so a
   * restart and every replica stay halted until an operator resumes through the store.
   */
  async set(state: DaemonTradingState, reason: string, nowMs: number = this.clock.nowMs()): Promise<void> {
    if (state !== 'halted') throw new Error(`the daemon can only halt by itself, not set ${String(state)}: resuming goes through the store`);
    this.apply(state, reason, undefined);
    this.unstored = { state, reason, atMs: nowMs };
    try {
      await this.storeUnstored();
    } catch (error) {
      this.log.error({ err: error, state }, 'trading state applied but not stored (store unavailable): retried every second');
    }
  }

  get state(): TradingState {
    return this.engine.tradingState;
  }

  /** The last stored record applied here (seq 0: none). */
  get appliedPosition(): StoredPosition {
    return this.applied;
  }

  private async storeUnstored(): Promise<void> {
    const change = this.unstored;
    if (change === undefined) return;
    const position = await this.store.write(change);
    if (this.unstored === change) this.unstored = undefined;
    // A record the operator stored meanwhile with a larger seq was applied by sync(): it stays.
    if (isLater(position, this.applied)) {
      this.applied = position;
      this.apply(change.state, change.reason, position.seq);
    }
  }

  private async report(): Promise<void> {
    await this.store.reportApplied({
      instance: this.instance, epoch: this.applied.epoch, appliedSeq: this.applied.seq, state: this.engine.tradingState, atMs: this.clock.nowMs(),
    });
  }

  /** Hears each operator's resume stored after start-up (`tradebot resume`), whatever the state was. */
  onOperatorResume(listener: () => void): void {
    this.resumeListeners.push(listener);
  }

  /** Hears each change applied here, after it took effect (notifications, the console's live page). */
  onChange(listener: (change: AppliedTradingStateChange) => void): void {
    this.listeners.push(listener);
  }

  private apply(state: TradingState, reason: string, seq: number | undefined): void {
    const previous = this.engine.tradingState;
    if (previous === state) return;
    this.engine.setTradingState(state, reason);
    this.log.warn({ state, previous, reason, ...(seq === undefined ? {} : { seq }) }, 'trading state changed');
    const change: AppliedTradingStateChange = {
      state, previous, reason, atMs: this.clock.nowMs(),
      // A stored record is the same change on every replica; a halt not stored yet is this process's own.
      id: seq === undefined ? `local:${this.instance}:${this.clock.nowMs()}` : `${this.applied.epoch}:${seq}`,
    };
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // a listener never changes what was applied
      }
    }
  }
}
