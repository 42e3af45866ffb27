import type { Decimal } from '../../domain/decimal';
import type { Balances } from '../../domain/market';
import type { CollateralMode, SimEngine } from '../../simulator/engine/sim-engine';
import type { BalanceView } from '../../execution/prepare-order';

/**
 * The account as strategies and the executor's checks see it, read straight from the engine's
 * ledger (in paper mode the same numbers come from the balance endpoint). `ctx.balances` is a frozen
 * snapshot of the trading wallet, rebuilt only after something changed (`touch()`), because
 * strategies read it on every candle and balances change only on orders and fills.
 */
export class AccountView implements BalanceView {
  private snapshot: Balances | undefined;

  constructor(private readonly engine: SimEngine, private readonly apiKey: string, private readonly collateral: CollateralMode = 'separate') {}

  touch(): void {
    this.snapshot = undefined;
  }

  balances(): Balances {
    if (this.snapshot === undefined) {
      const out: Record<string, { available: Decimal; freeze: Decimal }> = {};
      for (const [currency, entry] of this.engine.tradingBalances(this.apiKey)) {
        out[currency] = Object.freeze({ available: entry.available, freeze: entry.freeze });
      }
      this.snapshot = Object.freeze(out);
    }
    return this.snapshot;
  }

  /**
   * The executor's balance check: the trading wallet for spot orders, the collateral wallet for an
   * OCO's margin (the daemon polls both, so an unfunded collateral account denies the OCO before
   * anything is sent). With `unified` collateral the OCO draws on the trading wallet in a way the
   * check does not model, so it is left to the engine (undefined).
   */
  available(currency: string, wallet: 'trading' | 'collateral'): Decimal | undefined {
    if (wallet === 'trading') return this.engine.tradingBalances(this.apiKey).get(currency)?.available;
    return this.collateral === 'separate' ? this.engine.collateralBalances(this.apiKey).get(currency)?.available : undefined;
  }
}
