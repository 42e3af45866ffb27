import type { ControlCommand, StrategyControlStore } from '../strategy-control/control-store';
import type { TradingState } from '../trading-state/trading-state';
import type { TradingStateStore } from '../trading-state/trading-state-store';
import type { AuditEntry, AuditLog } from './audit-log';
import { requestStrategyChange, type StrategyRequestOutcome } from './strategy-request';
import { changeTradingState, type TradingStateOutcome } from './trading-state-change';

/** Who acts: the console token's name or the CLI's user, and the door they used. */
export interface Operator {
  readonly who: string;
  readonly via: AuditEntry['via'];
}

export const TRADING_STATE_ACTIONS: Readonly<Record<TradingState, string>> = { halted: 'pause', active: 'resume', reducing: 'reduce-only' };
const REQUEST_ACTIONS: Readonly<Record<ControlCommand, string>> = { reload: 'reload', promote: 'promote', rollback: 'rollback', resume: 'strategy-resume', cancel: 'cancel' };

export interface OperatorStores {
  readonly tradingState: TradingStateStore;
  /** Where the trading state is stored, for the operator's answer (`account abc`, `file …`). */
  readonly tradingStateWhere: string;
  readonly control: StrategyControlStore;
  readonly audit: AuditLog;
}

/**
 * The operator's actions, one path for the CLI and the console: each goes through the store the
 * daemon reads, waits for what the daemon applied, and is written to the audit log with who, what,
 * when and the answer. `audited: false` says the audit write failed (the action itself stands).
 */
export class OperatorActions {
  constructor(private readonly stores: OperatorStores) {}

  async setTradingState(by: Operator, state: TradingState, reason: string, waitMs: number): Promise<TradingStateOutcome & { readonly audited: boolean }> {
    const action = TRADING_STATE_ACTIONS[state];
    try {
      const outcome = await changeTradingState(this.stores.tradingState, { state, reason, waitMs, where: this.stores.tradingStateWhere });
      const audited = await this.audit({ by, action, reason, result: outcome.code === 0 ? 'applied' : 'unconfirmed', message: outcome.text });
      return { ...outcome, audited };
    } catch (err) {
      await this.audit({ by, action, reason, result: 'error', message: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  }

  async requestChange(
    by: Operator, command: ControlCommand, target: { readonly strategy?: string | undefined; readonly clientOrderId?: string | undefined }, timeoutMs: number,
  ): Promise<StrategyRequestOutcome & { readonly audited: boolean }> {
    const action = REQUEST_ACTIONS[command];
    const named = target.clientOrderId ?? target.strategy;
    try {
      const outcome = await requestStrategyChange(this.stores.control, { command, ...target, timeoutMs });
      const result = outcome.ok === undefined ? 'unconfirmed' : outcome.ok ? 'applied' : 'refused';
      const audited = await this.audit({ by, action, target: named, result, message: outcome.text });
      return { ...outcome, audited };
    } catch (err) {
      await this.audit({ by, action, target: named, result: 'error', message: err instanceof Error ? err.message : String(err) });
      throw err;
    }
  }

  private async audit(e: { by: Operator; action: string; target?: string | undefined; reason?: string; result: AuditEntry['result']; message: string }): Promise<boolean> {
    try {
      await this.stores.audit.append({
        atMs: Date.now(), who: e.by.who, via: e.by.via, action: e.action, result: e.result, message: e.message,
        ...(e.target === undefined ? {} : { target: e.target }), ...(e.reason === undefined ? {} : { reason: e.reason }),
      });
      return true;
    } catch {
      return false;
    }
  }
}
