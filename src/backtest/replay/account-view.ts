import type { Decimal } from '../../domain/decimal';
import type { Balances } from '../../domain/market';
import type { SimEngine } from '../../simulator/engine/sim-engine';
import type { BalanceView } from '../../execution/prepare-order';

/**
 * The account as strategies and the executor's checks see it, read straight from the engine's
 * ledger (in paper mode the same numbers come from the balance endpoint). `ctx.balances` is a frozen
 * snapshot of the trading wallet, rebuilt only after something changed (`touch()`), because
 * strategies read it on every candle and balances change only on orders and fills.
 */
export class AccountView implements BalanceView {
  private snapshot: Balances | undefined;

  constructor(private readonly engine: SimEngine, private readonly apiKey: string) {}

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
   * The executor's balance check reads the balance poller's snapshot of the TRADING wallet; the
   * collateral wallet (OCOs) is not polled, so it is unknown there and the exchange checks it. The
   * backtest answers the same way, so both take the same path (an OCO without collateral funds is
   * rejected by the engine, not denied beforehand).
   */
  available(currency: string, wallet: 'trading' | 'collateral'): Decimal | undefined {
    return wallet === 'trading' ? this.engine.tradingBalances(this.apiKey).get(currency)?.available : undefined;
  }
}
