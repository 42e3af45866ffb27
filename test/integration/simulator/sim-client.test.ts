import { SystemClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import {
  AuthenticationError, DuplicateClientOrderIdError, ExchangeUnavailableError, ExchangeValidationError, InsufficientFundsError,
  OrderNotFoundError, RequestTimeoutError, TradebotError,
} from '../../../src/domain/errors';
import type { ExchangeClient } from '../../../src/exchange/exchange-client';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import type { CsvCandleRow } from '../../../src/candle-files/csv-candles';
import { InProcessExchange } from '../../../src/simulator/in-process-exchange';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';

// Hand-made 1m candles around 100 so every fill can be computed by hand.
const T0 = 1_700_000_040; // minute-aligned
const rows: CsvCandleRow[] = [
  ['100', '101', '99', '100'], // T0
  ['100', '106', '99.5', '104'], // T0+60: high nearer the open
  ['104', '105', '96', '97'], // T0+120
  ['97', '98', '90', '92'], // T0+180
  ['92', '93', '91', '92.5'], // T0+240
// Volume 20 BTC a minute: its 10 % share fills every order of these tests in one candle.
].map(([open, high, low, close], i) => ({ time: T0 + i * 60, open: open!, high: high!, low: low!, close: close!, volume: '20' }));

let sim: SimulatedExchange;
let client: HttpExchangeClient;

beforeEach(async () => {
  sim = await startSimulatedExchange({
    apiKey: 'key-1', apiSecret: 'secret-1', balances: { USDT: '10000', BTC: '1' }, collateralBalances: { USDT: '1000' },
    markets: [{ name: 'BTC_USDT', rows }], speed: 0, start: T0, rateLimits: false,
  });
  const clock = new SystemClock();
  client = new HttpExchangeClient({
    baseUrl: sim.url, primaryRegion: 'global', credentials: { apiKey: 'key-1', apiSecret: 'secret-1' },
    nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 2000,
  });
});

afterEach(async () => {
  await sim.close();
});

// The ExchangeClient contract over both transports of the simulator: the HTTP client over loopback,
// and the in-process adapter the backtest uses (the same handlers, parsers and error table).
describe.each(['http', 'in-process'] as const)('over %s', (transport) => {
  let port: ExchangeClient;
  beforeEach(() => {
    port = transport === 'http' ? client : new InProcessExchange({ engine: sim.engine, apiKey: 'key-1', feed: sim.feed });
  });

  test('public: ping, time, markets, klines with the open candle last', async () => {
    expect(await port.ping()).toBe(true);
    expect(Math.abs((await port.fetchServerTime()) - Date.now())).toBeLessThan(5000);
    const markets = await port.fetchMarkets();
    expect(markets[0]).toMatchObject({ name: 'BTC_USDT', stockPrec: 6, moneyPrec: 2 });
    expect(markets[0]!.takerFee.toString()).toBe('0.001');

    sim.advanceTo(T0 + 150); // two candles closed, the third half-way
    const candles = await port.fetchCandles({ market: 'BTC_USDT', interval: '1m', start: T0 });
    expect(candles.map((c) => c.time)).toEqual([T0, T0 + 60, T0 + 120]);
    expect(candles[1]!.close.toString()).toBe('104');
    expect(candles[2]!.open.toString()).toBe('104');
    expect(candles[2]!.close.lessThan(104)).toBe(true); // partial: on its way down to the low
    const hours = await port.fetchCandles({ market: 'BTC_USDT', interval: '1h', start: 1_699_999_200 });
    expect(hours).toHaveLength(1);
    expect(hours[0]!.high.toString()).toBe('106');
  });

  test('stop-limit: created, activated by the candle path, filled; balances and history follow', async () => {
    const created = await port.placeStopLimit({
      market: 'BTC_USDT', side: 'buy', amount: '0.5', price: '105.5', activationPrice: '105', clientOrderId: 'sl-1',
    });
    expect(created).toMatchObject({ market: 'BTC_USDT', side: 'buy', type: 'stop limit', activated: false, activationCondition: 'gte', clientOrderId: 'sl-1' });
    const balances = await port.fetchTradingBalances();
    expect(balances['USDT']!.freeze.toString()).toBe('52.80275');

    await expect(port.placeStopLimit({ market: 'BTC_USDT', side: 'buy', amount: '0.5', price: '105.5', activationPrice: '105', clientOrderId: 'sl-1' }))
      .rejects.toBeInstanceOf(DuplicateClientOrderIdError);
    expect(await port.fetchActiveOrders({ market: 'BTC_USDT' })).toHaveLength(1);

    sim.advanceTo(T0 + 120);
    expect(await port.fetchActiveOrders({ market: 'BTC_USDT' })).toHaveLength(0);
    const history = await port.fetchOrderHistory({ market: 'BTC_USDT' });
    expect(history[0]).toMatchObject({ orderId: created.orderId, status: 'FILLED' });
    expect(history[0]!.dealStock.toString()).toBe('0.5');
    const deals = await port.fetchExecutedDeals({ market: 'BTC_USDT' });
    expect(deals[0]).toMatchObject({ orderId: created.orderId, role: 'taker' });
    expect(deals[0]!.price.toString()).toBe('105');
    const after = await port.fetchTradingBalances();
    expect(after['BTC']!.available.toString()).toBe('1.5');
    expect(after['USDT']!.available.toString()).toBe('9947.4475'); // 10000 - 52.5 - 0.0525 fee
  });

  test('OCO: the stop-loss executes and cancels the take-profit', async () => {
    const oco = await port.placeOco({
      market: 'BTC_USDT', side: 'sell', amount: '0.5', price: '110', activationPrice: '95', stopLimitPrice: '94', clientOrderId: 'oco-1',
    });
    expect(oco.stopLoss).toMatchObject({ type: 'margin stop limit', activationCondition: 'lte', activated: false });
    expect(oco.takeProfit.type).toBe('margin limit');
    expect((await port.fetchActiveOcoOrders({ market: 'BTC_USDT' }))[0]!.id).toBe(oco.id);

    sim.advanceTo(T0 + 240); // the T0+180 candle falls through 95
    expect(await port.fetchActiveOcoOrders({ market: 'BTC_USDT' })).toHaveLength(0);
    const history = await port.fetchOrderHistory({ market: 'BTC_USDT' });
    const byId = new Map(history.map((h) => [h.orderId, h]));
    expect(byId.get(oco.stopLoss.orderId)?.status).toBe('FILLED');
    expect(byId.get(oco.takeProfit.orderId)?.status).toBe('CANCELED');
    await expect(port.cancelOco({ market: 'BTC_USDT', orderId: oco.id })).rejects.toBeInstanceOf(OrderNotFoundError);
  });

  test('cancel, kill-switch on the market clock, and engine rejections', async () => {
    const order = await port.placeStopLimit({ market: 'BTC_USDT', side: 'sell', amount: '0.1', price: '89', activationPrice: '90' });
    const canceled = await port.cancelOrder({ market: 'BTC_USDT', orderId: order.orderId });
    expect(canceled.status).toBe('CANCELED');
    await expect(port.cancelOrder({ market: 'BTC_USDT', orderId: order.orderId })).rejects.toBeInstanceOf(OrderNotFoundError);

    await port.placeStopLimit({ market: 'BTC_USDT', side: 'sell', amount: '0.1', price: '79', activationPrice: '80' });
    const timer = await port.setKillSwitch({ market: 'BTC_USDT', timeoutSeconds: 30 });
    expect(timer).toMatchObject({ market: 'BTC_USDT', startTime: T0, cancellationTime: T0 + 30 });
    expect(await port.fetchKillSwitchStatus('BTC_USDT')).toHaveLength(1);
    sim.advanceTo(T0 + 31);
    expect(await port.fetchActiveOrders({ market: 'BTC_USDT' })).toHaveLength(0);
    expect(await port.fetchKillSwitchStatus()).toHaveLength(0);

    await expect(port.placeStopLimit({ market: 'BTC_USDT', side: 'sell', amount: '5', price: '79', activationPrice: '80' }))
      .rejects.toBeInstanceOf(InsufficientFundsError);
    await expect(port.placeStopLimit({ market: 'BTC_USDT', side: 'sell', amount: '0.01', price: '79', activationPrice: '80' }))
      .rejects.toBeInstanceOf(ExchangeValidationError);
  });

  test('account endpoints answer plausible fixed data', async () => {
    expect(Object.keys(await port.fetchMainBalances())).toEqual([]);
    expect((await port.fetchCodes()).data).toHaveLength(1);
    expect((await port.fetchMiningAccounts({ name: 'sim-main' })).data).toHaveLength(1);
    const jwt = await port.issueJwt();
    expect(jwt.token.split('.')).toHaveLength(3);
    expect(await port.fetchWebsocketToken()).toMatch(/^sim-ws-/);
    const fee = new Decimal('0.001');
    expect((await port.fetchMarkets())[0]!.makerFee.equals(fee)).toBe(true);
  });
});

test('the client classifies the simulator failures: bad secret, 5xx, lost answer, held request', async () => {
  const clock = new SystemClock();
  const wrong = new HttpExchangeClient({
    baseUrl: sim.url, primaryRegion: 'global', credentials: { apiKey: 'key-1', apiSecret: 'not-it' },
    nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 2000,
  });
  await expect(wrong.fetchTradingBalances()).rejects.toBeInstanceOf(AuthenticationError);

  sim.faults.enqueue('error5xx', { endpoint: 'stopLimit' });
  await expect(client.placeStopLimit({ market: 'BTC_USDT', side: 'sell', amount: '0.1', price: '79', activationPrice: '80', clientOrderId: 'f-1' }))
    .rejects.toBeInstanceOf(ExchangeUnavailableError);
  expect(sim.engine.activeOrders('key-1', { clientOrderId: 'f-1' })).toHaveLength(0); // 5xx: nothing happened

  sim.faults.enqueue('lostAnswer', { endpoint: 'stopLimit' });
  await expect(client.placeStopLimit({ market: 'BTC_USDT', side: 'sell', amount: '0.1', price: '79', activationPrice: '80', clientOrderId: 'f-2' }))
    .rejects.toBeInstanceOf(ExchangeUnavailableError);
  expect(await client.fetchActiveOrders({ market: 'BTC_USDT', clientOrderId: 'f-2' })).toHaveLength(1); // it exists

  const impatient = new HttpExchangeClient({
    baseUrl: sim.url, primaryRegion: 'global', credentials: { apiKey: 'key-1', apiSecret: 'secret-1' },
    nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 200,
  });
  sim.faults.configure({ timeoutHoldMs: 1000 });
  sim.faults.enqueue('timeout', { endpoint: 'cancelOrder' });
  await expect(impatient.cancelOrder({ market: 'BTC_USDT', clientOrderId: 'f-2' })).rejects.toBeInstanceOf(RequestTimeoutError);
});

describe('the spec dialect end to end, and a dialect mismatch failing in paper mode', () => {
  let specSim: SimulatedExchange;
  beforeEach(async () => {
    specSim = await startSimulatedExchange({
      apiKey: 'key-1', apiSecret: 'secret-1', balances: { USDT: '10000', BTC: '1' }, collateralBalances: { USDT: '1000' },
      markets: [{ name: 'BTC_USDT', rows }], speed: 0, start: T0, rateLimits: false, dialect: 'spec',
    });
  });
  afterEach(async () => {
    await specSim.close();
  });
  const clientFor = (dialect: 'venue' | 'spec') => {
    const clock = new SystemClock();
    return new HttpExchangeClient({
      baseUrl: specSim.url, primaryRegion: 'global', credentials: { apiKey: 'key-1', apiSecret: 'secret-1' }, dialect,
      nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 2000,
    });
  };

  test('client and simulator in spec: stop-limit, active list, cancel, OCO create and list', async () => {
    const spec = clientFor('spec');
    const order = await spec.placeStopLimit({ market: 'BTC_USDT', side: 'sell', amount: '0.1', price: '89', activationPrice: '90', clientOrderId: 'spec-1' });
    expect(order.clientOrderId).toBe('spec-1');
    expect((await spec.fetchActiveOrders({ market: 'BTC_USDT', clientOrderId: 'spec-1' }))[0]!.orderId).toBe(order.orderId);
    expect((await spec.cancelOrder({ market: 'BTC_USDT', orderId: order.orderId })).status).toBe('CANCELED');
    await expect(spec.cancelOrder({ market: 'BTC_USDT', clientOrderId: 'spec-1' })).rejects.toBeInstanceOf(OrderNotFoundError);
    const oco = await spec.placeOco({ market: 'BTC_USDT', side: 'sell', amount: '0.5', price: '110', activationPrice: '95', stopLimitPrice: '94', clientOrderId: 'spec-oco' });
    expect([oco.stopLoss.clientOrderId, oco.takeProfit.clientOrderId]).toEqual([undefined, undefined]); // legs carry "", as the venue documents
    expect((await spec.fetchActiveOcoOrders({ market: 'BTC_USDT' }))[0]!.id).toBe(oco.id);
  });

  test('a venue client against a spec simulator is refused with code 30 naming the field, and no order exists', async () => {
    const venue = clientFor('venue');
    const err = (await venue.placeStopLimit({ market: 'BTC_USDT', side: 'sell', amount: '0.1', price: '89', activationPrice: '90', clientOrderId: 'v-1' })
      .catch((e: unknown) => e)) as ExchangeValidationError;
    expect(err).toBeInstanceOf(ExchangeValidationError);
    expect(err.venueCode).toBe(30);
    expect(Object.keys(err.fieldErrors)).toEqual(['clientOrderId']);
    expect(specSim.engine.activeOrders('key-1')).toHaveLength(0);
    // The venue's OCO list path does not exist in the spec dialect.
    await expect(venue.fetchActiveOcoOrders({ market: 'BTC_USDT' })).rejects.toBeInstanceOf(TradebotError);
  });
});
