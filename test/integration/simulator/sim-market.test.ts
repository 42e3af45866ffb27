import { SystemClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { ExchangeRejectedError, RequestValidationError } from '../../../src/domain/errors';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { ROWS, T0 } from '../execution/harness';

/**
 * The simulator's real-market behaviour over HTTP, in both dialects: the collateral account and its
 * documented endpoints (balance, balance summary, transfer), partial fills as the venue shows them
 * (active list with `left`, one deal per fill, a history row with deal amounts and no `left`, the
 * PARTIALLY_FILLED filter) and the OCO rule (the other leg ends when one executes, not on a trigger).
 */
// The execution harness's candles around 100, trading 2 BTC a minute: the default 10 % share lets 0.2 BTC a minute fill.
const rows = ROWS;

describe.each(['venue', 'spec'] as const)('%s dialect', (dialect) => {
  let sim: SimulatedExchange;
  let client: HttpExchangeClient;

  beforeEach(async () => {
    sim = await startSimulatedExchange({
      apiKey: 'k', apiSecret: 's', balances: { USDT: '10000', BTC: '1' }, mainBalances: { USDT: '5000' },
      markets: [{ name: 'BTC_USDT', rows }], speed: 0, start: T0, rateLimits: false, dialect,
    });
    const clock = new SystemClock();
    client = new HttpExchangeClient({
      baseUrl: sim.url, primaryRegion: 'global', credentials: { apiKey: 'k', apiSecret: 's' }, dialect,
      nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 2000,
    });
  });
  afterEach(async () => {
    await sim.close();
  });

  test('the collateral account is its own, funded by a transfer; OCO margin and what is free show in its balances', async () => {
    expect(await client.fetchCollateralBalances()).toEqual({});
    const oco = { market: 'BTC_USDT', side: 'sell' as const, amount: '0.5', price: '110', activationPrice: '95', stopLimitPrice: '94' };
    // Unfunded: refused per leg, the stop-loss leg checked first (152).
    await expect(client.placeOco(oco)).rejects.toMatchObject({ venueCode: 152, fieldErrors: { price: ['Not enough balance for stop limit order.'] } });

    await client.transferBetweenBalances({ ticker: 'USDT', amount: '1000', from: 'main', to: 'collateral' });
    await client.transferBetweenBalances({ ticker: 'USDT', amount: '500', from: 'spot', to: 'collateral' });
    expect(Object.fromEntries(Object.entries(await client.fetchMainBalances()).map(([k, v]) => [k, v.toString()]))).toEqual({ USDT: '4000' });
    expect((await client.fetchTradingBalances())['USDT']!.available.toString()).toBe('9500');
    expect((await client.fetchCollateralBalances())['USDT']!.toString()).toBe('1500');

    await client.placeOco(oco);
    const summary = await client.fetchCollateralBalanceSummary('USDT');
    expect([summary['USDT']!.balance.toString(), summary['USDT']!.availableWithoutBorrow.toString()]).toEqual(['1500', '1444.945']);

    // Only free funds move: the margin held by the OCO cannot be transferred out.
    const refused = await client.transferBetweenBalances({ ticker: 'USDT', amount: '1450', from: 'collateral', to: 'main' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ExchangeRejectedError);
    expect(refused).toMatchObject({ venueCode: 3, fieldErrors: { amount: ['You don\'t have such amount for transfer (available 1444.945, in amount: 1450)'] } });
    // Refused before sending: the same balance twice, or neither method nor from/to.
    await expect(client.transferBetweenBalances({ ticker: 'USDT', amount: '1', from: 'main', to: 'main' })).rejects.toBeInstanceOf(RequestValidationError);
  });

  test('partial fills: the active order shows its rest, one deal per fill; cancelled part-filled, history has the deal amounts', async () => {
    const placed = await client.placeStopLimit({ market: 'BTC_USDT', side: 'buy', amount: '0.5', price: '105.5', activationPrice: '105', clientOrderId: 'big-1' });
    sim.advanceTo(T0 + 120); // up through 105 (triggered, 0.2 at 105), back down
    sim.advanceTo(T0 + 180); // opens at 104, below the limit: 0.2 more at the open
    const [active] = await client.fetchActiveOrders({ market: 'BTC_USDT' });
    expect([active!.status, active!.left.toString(), active!.dealStock.toString(), active!.dealMoney.toString()]).toEqual(['PARTIALLY_FILLED', '0.1', '0.4', '41.8']);
    const deals = await client.fetchExecutedDeals({ market: 'BTC_USDT' });
    expect(deals.map((x) => [x.orderId, x.amount.toString(), x.price.toString(), x.role])).toEqual([
      [placed.orderId, '0.2', '104', 'maker'], [placed.orderId, '0.2', '105', 'taker'],
    ]);

    const canceled = await client.cancelOrder({ market: 'BTC_USDT', clientOrderId: 'big-1' });
    expect([canceled.status, canceled.left.toString(), canceled.dealStock.toString()]).toEqual(['CANCELED', '0.1', '0.4']);
    const balances = await client.fetchTradingBalances();
    expect([balances['BTC']!.available.toString(), balances['USDT']!.freeze.toString()]).toEqual(['1.4', '0']);
    expect(balances['USDT']!.available.toString()).toBe(new Decimal('10000').minus('41.8').minus('0.0418').toString());

    const [row] = await client.fetchOrderHistory({ market: 'BTC_USDT' });
    // The venue's history rows carry no `left`: the client reads the rest as amount - dealStock.
    expect([row!.status, row!.dealStock.toString(), row!.left.toString()]).toEqual(['CANCELED', '0.4', '0.1']);
    expect(await client.fetchOrderHistory({ market: 'BTC_USDT', status: 'PARTIALLY_FILLED' })).toHaveLength(1);
    expect(await client.fetchOrderHistory({ market: 'BTC_USDT', status: 'FILLED' })).toHaveLength(0);
  });

  test('OCO: a stop-loss that triggers without trading leaves the take-profit open; its execution ends it', async () => {
    await client.transferBetweenBalances({ ticker: 'USDT', amount: '1000', from: 'main', to: 'collateral' });
    // The stop-loss's limit (98) sits above its trigger (97): triggered on the way down, it trades on the way back up.
    const oco = await client.placeOco({ market: 'BTC_USDT', side: 'sell', amount: '0.1', price: '110', activationPrice: '97', stopLimitPrice: '98' });
    sim.advanceTo(T0 + 180); // 104 -> 105 -> 96: triggered at 97, nothing traded
    const [listed] = await client.fetchActiveOcoOrders({ market: 'BTC_USDT' });
    expect([listed!.stopLoss.activated, listed!.stopLoss.status, listed!.takeProfit.status]).toEqual([true, 'OPEN', 'OPEN']);
    sim.advanceTo(T0 + 240); // 97 -> 98: the stop-loss limit executes, and only now the take-profit ends
    expect(await client.fetchActiveOcoOrders({ market: 'BTC_USDT' })).toHaveLength(0);
    const byId = new Map((await client.fetchOrderHistory({ market: 'BTC_USDT' })).map((h) => [h.orderId, h]));
    expect(byId.get(oco.stopLoss.orderId)).toMatchObject({ status: 'FILLED' });
    expect(byId.get(oco.stopLoss.orderId)!.dealMoney.toString()).toBe('9.8');
    expect(byId.get(oco.takeProfit.orderId)).toMatchObject({ status: 'CANCELED' });
  });
});
