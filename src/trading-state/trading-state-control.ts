import type { Logger } from '../log/logger';
import type { RiskEngine } from '../risk/risk-engine';
import type { TradingState } from '../risk/trading-state';
import type { TradingStateStore } from './trading-state-store';

/**
 * Keeps the RiskEngine's trading state in line with the operator's: `tradebot pause|resume|
 * reduce-only` writes the store (a Redis key), this class reads it every second (job
 * `trading-state`); SIGUSR1 / SIGUSR2 (halt / resume) go through `set()` for the in-process case.
 *
 * At start-up the STORED state wins: a restart (crash, deploy, pm2 reload) comes back in the state
 * the operator (or a signal) last set, active, reduce-only or halted. `risk.initialState` applies
 * only when nothing is stored: the first start of a deployment, or after Redis lost its data (then a
 * live config's `halted` keeps it from trading until someone checked). After that, only records
 * written after the last one applied count.
 */
export class TradingStateControl {
  private appliedAtMs = 0;

  constructor(private readonly engine: RiskEngine, private readonly store: TradingStateStore, private readonly log: Logger) {}

  async init(initial: TradingState): Promise<TradingState> {
    const stored = await this.store.read();
    let state = initial;
    let reason = 'config risk.initialState';
    if (stored !== undefined) {
      this.appliedAtMs = stored.atMs;
      state = stored.state;
      reason = `restored: ${stored.reason || 'no reason given'}`;
    }
    this.engine.setTradingState(state, reason);
    this.log.info({ state, reason, stored: stored?.state }, 'trading state at start');
    return state;
  }

  /** Applies an operator change written since the last one applied (job `trading-state`). */
  async sync(): Promise<void> {
    const stored = await this.store.read();
    if (stored === undefined || stored.atMs <= this.appliedAtMs) return;
    this.appliedAtMs = stored.atMs;
    this.apply(stored.state, `operator: ${stored.reason || 'no reason given'}`);
  }

  /** Sets and stores a state (signals, automatic halts). */
  async set(state: TradingState, reason: string, nowMs: number = Date.now()): Promise<void> {
    this.apply(state, reason);
    this.appliedAtMs = nowMs;
    try {
      await this.store.write({ state, reason, atMs: nowMs });
    } catch (error) {
      this.log.error({ err: error, state }, 'trading state applied but not stored (store unavailable)');
    }
  }

  get state(): TradingState {
    return this.engine.tradingState;
  }

  private apply(state: TradingState, reason: string): void {
    const previous = this.engine.tradingState;
    if (previous === state) return;
    this.engine.setTradingState(state, reason);
    this.log.warn({ state, previous, reason }, 'trading state changed');
  }
}
