import { Decimal } from '../../domain/decimal';
import { compareDecimals } from '../../domain/decimal-compare';
import { transferInvalid, transferNotEnough } from './rejections';
import type { TransferInput } from './types';

const ACCOUNTS = ['main', 'spot', 'collateral'];
const ZERO = new Decimal(0);
const MIN_AMOUNT = new Decimal('0.00000001');

/**
 * The checks of `main-account/transfer`, with the documentation's field messages: known balances
 * (`main`, `spot`, `collateral`) that differ, a known ticker, an amount of at most 8 decimals above
 * zero, and no more than the source can give (`transferable`: main balance, or a wallet's available
 * part; frozen funds never move).
 */
export function checkTransfer(input: TransferInput, knownTicker: boolean, transferable: Decimal): void {
  const fromOk = ACCOUNTS.includes(input.from);
  const toOk = ACCOUNTS.includes(input.to);
  if (!fromOk) throw transferInvalid('from', 'The selected from is invalid.');
  if (!toOk) throw transferInvalid('to', 'The selected to is invalid.');
  if (input.from === input.to) throw transferInvalid('to', 'The to and from must be different.');
  if (!knownTicker) throw transferInvalid('ticker', 'The selected ticker is invalid.');
  if (input.amount.decimalPlaces() > 8 || compareDecimals(input.amount, MIN_AMOUNT) < 0) {
    throw transferInvalid('amount', 'The amount must be at least 0.00000001.');
  }
  if (compareDecimals(transferable, input.amount) < 0) {
    throw transferNotEnough(Decimal.max(transferable, ZERO).toString(), input.amount.toString());
  }
}
