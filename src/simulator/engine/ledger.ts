import { Decimal, parseDecimal } from '../../domain/decimal';
import { compareDecimals } from '../../domain/decimal-compare';
import { notEnoughBalance } from './rejections';
import type { AccountFunding, BalanceEntry, Reserve, Wallet } from './types';

const ZERO = new Decimal(0);

/**
 * The balances of one API key: trading (spot: available + freeze), collateral (same shape, used by
 * the collateral OCO; its own account, funded only by its funding or by a transfer) and main (the
 * funding account). Every change goes through freeze / spend / credit / release / transfer so that
 * `available + freeze` always equals what the account owns.
 */
export class Ledger {
  private readonly wallets: Record<Wallet, Map<string, BalanceEntry>> = { trading: new Map(), collateral: new Map() };
  private readonly main = new Map<string, Decimal>();

  constructor(funding: AccountFunding, knownCurrencies: Iterable<string>) {
    for (const currency of knownCurrencies) {
      this.entry('trading', currency);
      this.entry('collateral', currency);
    }
    for (const [currency, amount] of Object.entries(funding.trading ?? {})) this.entry('trading', currency).available = toAmount(amount, currency);
    for (const [currency, amount] of Object.entries(funding.collateral ?? {})) this.entry('collateral', currency).available = toAmount(amount, currency);
    for (const [currency, amount] of Object.entries(funding.main ?? {})) this.main.set(currency, toAmount(amount, currency));
  }

  /** The balance of `currency`, created at zero if unknown (the venue lists every currency). */
  entry(wallet: Wallet, currency: string): BalanceEntry {
    const map = this.wallets[wallet];
    let entry = map.get(currency);
    if (entry === undefined) {
      entry = { available: ZERO, freeze: ZERO };
      map.set(currency, entry);
    }
    return entry;
  }

  balances(wallet: Wallet): ReadonlyMap<string, BalanceEntry> {
    return this.wallets[wallet];
  }

  mainBalances(): ReadonlyMap<string, Decimal> {
    return this.main;
  }

  /** Moves `amount` from available to freeze, or rejects with code 10 and changes nothing. */
  freeze(wallet: Wallet, currency: string, amount: Decimal): Reserve {
    const entry = this.entry(wallet, currency);
    if (compareDecimals(entry.available, amount) < 0) throw notEnoughBalance();
    entry.available = entry.available.minus(amount);
    entry.freeze = entry.freeze.plus(amount);
    return { wallet, currency, remaining: amount };
  }

  /** Pays `amount` out of a reserve (a fill). Never more than what the reserve still holds. */
  spend(reserve: Reserve, amount: Decimal): void {
    const paid = compareDecimals(amount, reserve.remaining) <= 0 ? amount : reserve.remaining;
    const entry = this.entry(reserve.wallet, reserve.currency);
    entry.freeze = entry.freeze.minus(paid);
    reserve.remaining = reserve.remaining.minus(paid);
  }

  /** Gives back whatever the reserve still holds (cancel, or the unused part after a fill). */
  release(reserve: Reserve): void {
    if (reserve.remaining.isZero()) return;
    const entry = this.entry(reserve.wallet, reserve.currency);
    entry.freeze = entry.freeze.minus(reserve.remaining);
    entry.available = entry.available.plus(reserve.remaining);
    reserve.remaining = ZERO;
  }

  /**
   * Takes `amount` out of available without a reserve: only for a margin sell on the collateral
   * balance, where available may go below zero (a short position; `available + freeze` is still
   * what the account owns).
   */
  debit(wallet: Wallet, currency: string, amount: Decimal): void {
    const entry = this.entry(wallet, currency);
    entry.available = entry.available.minus(amount);
  }

  credit(wallet: Wallet, currency: string, amount: Decimal): void {
    const entry = this.entry(wallet, currency);
    entry.available = entry.available.plus(amount);
  }

  /** What `from` can give: the main balance, or the available (not frozen) part of a wallet. */
  transferable(from: Account, currency: string): Decimal {
    return from === 'main' ? (this.main.get(currency) ?? ZERO) : this.entry(from, currency).available;
  }

  /** Moves `amount` between two accounts; the caller checked `transferable` first. */
  transfer(from: Account, to: Account, currency: string, amount: Decimal): void {
    if (from === 'main') this.main.set(currency, (this.main.get(currency) ?? ZERO).minus(amount));
    else this.debit(from, currency, amount);
    if (to === 'main') this.main.set(currency, (this.main.get(currency) ?? ZERO).plus(amount));
    else this.credit(to, currency, amount);
  }
}

/** The three balances of an account: main (funding), trading (spot) and collateral. */
export type Account = 'main' | Wallet;

function toAmount(value: string | Decimal, currency: string): Decimal {
  return value instanceof Decimal ? value : parseDecimal(value, `balance ${currency}`);
}
