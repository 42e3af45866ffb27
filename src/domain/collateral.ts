/**
 * Which balance an OCO trades (FILL-MODEL.md "Collateral"):
 * - 'separate' (the live venue, paper mode, the default): OCO exists only on the collateral (margin)
 *   account; its margin is money on that account, whatever the side.
 * - 'unified' (backtests on request, a modelling convenience): OCO legs trade the trading balance as
 *   spot orders do (a sell holds the stock, a buy the money).
 */
export type CollateralMode = 'separate' | 'unified';

/** The wallet an OCO draws on in a collateral mode: the one rule the executor and the risk checks share. */
export function ocoWallet(mode: CollateralMode): 'trading' | 'collateral' {
  return mode === 'unified' ? 'trading' : 'collateral';
}
