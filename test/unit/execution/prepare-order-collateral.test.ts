import { Decimal } from '../../../src/domain/decimal';
import { ocoWallet, type CollateralMode } from '../../../src/domain/collateral';
import type { OcoIntent } from '../../../src/domain/intent';
import type { Balances } from '../../../src/domain/market';
import { prepareOrder, type BalanceView } from '../../../src/execution/orders/prepare-order';
import { checkBalance, type RiskContext } from '../../../src/risk/risk-checks';
import { simMarketInfo } from '../../../src/simulator/sim-markets';

/**
 * One rule (domain/collateral.ts ocoWallet) for the wallet an OCO draws on: the collateral account in
 * `separate` (the venue), the trading balance in `unified`. The executor's funds check and the risk
 * check both follow it, so `--collateral unified` no longer denies every OCO for an empty collateral account.
 */
const market = simMarketInfo('BTC_USDT'); // fees 0.001 / 0.001
const d = (v: string): Decimal => new Decimal(v);
const stamped = { strategy: 'alpha', interval: '1m' as const, candleTime: 1_700_000_040 };
const sellOco: OcoIntent = { kind: 'oco', market: 'BTC_USDT', side: 'sell', amount: d('0.2'), price: d('110'), activationPrice: d('95'), stopLimitPrice: d('94.5') };
const buyOco: OcoIntent = { kind: 'oco', market: 'BTC_USDT', side: 'buy', amount: d('0.2'), price: d('90'), activationPrice: d('105'), stopLimitPrice: d('105.5') };

/** A spot long of 0.2 BTC, no money left on the trading balance, and the collateral account as given. */
function view(mode: CollateralMode, collateral: Record<string, string>, trading: Record<string, string> = { BTC: '0.2', USDT: '0' }): BalanceView {
  return {
    available: (cur, wallet) => d((wallet === 'trading' ? trading : collateral)[cur] ?? '0'),
    ocoWallet: ocoWallet(mode),
  };
}
const balances = (m: Record<string, string>): Balances => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, { available: d(v), freeze: d('0') }]));
const riskCtx = (mode: CollateralMode | undefined, trading: Record<string, string>): RiskContext => ({
  strategy: 'alpha', lastPrice: d('100'), openOrders: [], marketInfo: market, balances: balances(trading),
  ...(mode === undefined ? {} : { ocoWallet: ocoWallet(mode) }),
});

describe('ocoWallet', () => {
  test('separate: the collateral account (the venue); unified: the trading balance', () => {
    expect(ocoWallet('separate')).toBe('collateral');
    expect(ocoWallet('unified')).toBe('trading');
  });
});

describe('prepareOrder: the OCO funds check reads the wallet the legs trade', () => {
  test('separate: margin in money on the collateral account, whatever the trading balance holds', () => {
    const denied = prepareOrder({ ...stamped, intent: sellOco }, market, view('separate', {}));
    // 0.2 x 110 (the worse leg) x 1.001
    expect(denied).toEqual({ ok: false, rule: 'balance', reason: 'needs 22.022 USDT (collateral), 0 available' });
    expect(prepareOrder({ ...stamped, intent: sellOco }, market, view('separate', { USDT: '22.022' }))).toMatchObject({ ok: true });
    expect(prepareOrder({ ...stamped, intent: buyOco }, market, view('separate', { USDT: '21.1' }))).toMatchObject({ ok: false, rule: 'balance' });
  });

  test('unified: a sell OCO needs the stock on the trading balance, a buy OCO the money plus fee; the collateral account is not read', () => {
    expect(prepareOrder({ ...stamped, intent: sellOco }, market, view('unified', {}))).toMatchObject({ ok: true });
    expect(prepareOrder({ ...stamped, intent: sellOco }, market, view('unified', { USDT: '1000' }, { BTC: '0.1999' })))
      .toEqual({ ok: false, rule: 'balance', reason: 'needs 0.2 BTC (trading), 0.1999 available' });
    // buy: 0.2 x 105.5 x 1.001 = 21.1211 USDT on the trading balance
    expect(prepareOrder({ ...stamped, intent: buyOco }, market, view('unified', { USDT: '1000' }, { USDT: '21.12' }))).toMatchObject({ ok: false, rule: 'balance' });
    expect(prepareOrder({ ...stamped, intent: buyOco }, market, view('unified', {}, { USDT: '21.1211' }))).toMatchObject({ ok: true });
  });

  test('a view without ocoWallet (older callers) keeps the venue rule: the collateral account', () => {
    const plain: BalanceView = { available: (cur, wallet) => (wallet === 'trading' && cur === 'BTC' ? d('1') : d('0')) };
    expect(prepareOrder({ ...stamped, intent: sellOco }, market, plain)).toMatchObject({ ok: false, rule: 'balance' });
  });
});

describe('risk checkBalance: the trading balance only for what trades it', () => {
  test('separate (and by default): an OCO is not checked against the spot balance (the executor checks the collateral account)', () => {
    const empty = { USDT: '0' };
    expect(checkBalance(sellOco, riskCtx('separate', empty), {})).toBeUndefined();
    expect(checkBalance(buyOco, riskCtx(undefined, empty), {})).toBeUndefined();
  });

  test('unified: an OCO is checked as a spot order on the trading balance', () => {
    expect(checkBalance(sellOco, riskCtx('unified', { BTC: '0.2' }), {})).toBeUndefined();
    expect(checkBalance(sellOco, riskCtx('unified', { BTC: '0.1' }), {})).toMatchObject({ rule: 'balance' });
    expect(checkBalance(buyOco, riskCtx('unified', { USDT: '21.1' }), {})).toBeUndefined(); // 0.2 x 105.5
    expect(checkBalance(buyOco, riskCtx('unified', { USDT: '21' }), {})).toMatchObject({ rule: 'balance' });
  });
});
