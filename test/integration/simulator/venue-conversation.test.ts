import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CsvCandleRow } from '../../../src/candle-files/csv-candles';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';

/**
 * A client written against the REAL venue, not against tradebot: it signs exactly as the exchange's
 * own bot guide does (`send_request` in whitebit-exchange/docs guides/building-a-trading-bot.mdx:
 * the parameters, then `request` and a string millisecond `nonce`, serialised by Python's json.dumps,
 * base64 payload, hex HMAC-SHA512, no nonceWindow) and sends the request bodies of the
 * documentation's examples (test/fixtures/venue/). It talks to the simulated exchange with its
 * DEFAULT settings, unchanged, and expects the documentation's answer shapes back.
 */
const KEY = 'venue-client-key';
const SECRET = 'venue-client-secret';
const venue = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(__dirname, '../../fixtures/venue', `${name}.json`), 'utf8')) as Record<string, unknown>;

// The documentation's examples assume BTC near 40,500: an OCO buy with its take-profit at 40,000 and
// its stop at 41,000 (request_order_collateral_oco.json) brackets that price.
const T0 = 1_700_000_040;
const rows: CsvCandleRow[] = Array.from({ length: 30 }, (_, i) => ({
  time: T0 - 1800 + i * 60, open: '40500', high: '40600', low: '40400', close: '40500', volume: '3',
}));

let sim: SimulatedExchange;
let lastNonce = 0;

beforeAll(async () => {
  sim = await startSimulatedExchange({
    apiKey: KEY, apiSecret: SECRET, balances: { USDT: '10000', BTC: '1' }, mainBalances: { USDT: '5000' },
    markets: [{ name: 'BTC_USDT', rows }], speed: 0, start: T0,
  });
});
afterAll(async () => {
  await sim.close();
});

/** Python's json.dumps(dict) default separators: ", " and ": ". */
function pythonJsonDumps(data: Record<string, unknown>): string {
  return `{${Object.entries(data).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`;
}

/** The guide's send_request, transcribed. */
async function sendRequest(path: string, params: Record<string, unknown> = {}): Promise<{ status: number; body: any }> {
  lastNonce = Math.max(Date.now(), lastNonce + 1);
  const data = { ...params, request: path, nonce: String(lastNonce) };
  const dataJson = pythonJsonDumps(data);
  const payload = Buffer.from(dataJson).toString('base64');
  const signature = createHmac('sha512', SECRET).update(payload).digest('hex');
  const res = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-TXC-APIKEY': KEY, 'X-TXC-PAYLOAD': payload, 'X-TXC-SIGNATURE': signature },
    body: dataJson,
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Every field of `answer` is one the documentation's example of that answer has. */
function expectDocumentedFields(answer: Record<string, unknown>, documented: Record<string, unknown>): void {
  expect(Object.keys(answer).filter((k) => !(k in documented))).toEqual([]);
}

test('create stop-limit, list, cancel, cancel again, balances, klines, OCO list: the documentation\'s conversation', async () => {
  // 1. Create a stop-limit order with the documentation's request body.
  const body = venue('request_order_stop_limit');
  const created = await sendRequest('/api/v4/order/stop_limit', body);
  expect(created.status).toBe(200);
  const documentedOrder = venue('http_post_order_stop_limit');
  expectDocumentedFields(created.body, documentedOrder);
  expect(created.body).toMatchObject({
    clientOrderId: body['clientOrderId'], market: 'BTC_USDT', side: 'buy', type: 'stop limit', amount: '0.001',
    activation_price: '10000', activationCondition: 'gte', dealMoney: '0', dealStock: '0', dealFee: '0',
  });
  expect(typeof created.body.orderId).toBe('number');
  const orderId = created.body.orderId as number;

  // 2. List the active orders of the market.
  const active = await sendRequest('/api/v4/orders', { market: 'BTC_USDT', offset: 0, limit: 50 });
  expect(active.status).toBe(200);
  expect(active.body.map((o: { orderId: number }) => o.orderId)).toEqual([orderId]);
  expectDocumentedFields(active.body[0], documentedOrder);

  // 3. Cancel it by its orderId.
  const canceled = await sendRequest('/api/v4/order/cancel', { market: 'BTC_USDT', orderId });
  expect(canceled.status).toBe(200);
  expect(canceled.body).toMatchObject({ orderId, clientOrderId: body['clientOrderId'], status: 'CANCELED' });

  // 4. Cancel again: the documented "not found".
  const again = await sendRequest('/api/v4/order/cancel', { market: 'BTC_USDT', orderId });
  expect(again).toEqual({ status: 400, body: venue('http_post_order_cancel_error') });

  // 5. Balances, as documented: {ticker: {available, freeze}}.
  const balances = await sendRequest('/api/v4/trade-account/balance', {});
  expect(balances.status).toBe(200);
  for (const entry of Object.values(balances.body as Record<string, Record<string, unknown>>)) {
    expect(Object.keys(entry).sort()).toEqual(Object.keys(venue('http_post_trade_account_balance')['BTC'] as object).sort());
  }
  expect(balances.body.USDT.freeze).toBe('0'); // the canceled order released its funds

  // 6. Klines (public, v1 shape): rows of [time, open, close, high, low, volume, volume money].
  const kline = await (await fetch(`${sim.url}/api/v1/public/kline?market=BTC_USDT&interval=1m&limit=5`)).json() as { success: boolean; message: unknown; result: unknown[][] };
  expect(kline).toMatchObject({ success: true, message: null });
  expect(kline.result).toHaveLength(5);
  expect(kline.result[0]).toEqual([expect.any(Number), '40500.00', '40500.00', '40600.00', '40400.00', '3', expect.any(String)]);

  // 7. OCO list at the documented path (empty), then with the documentation's OCO in it.
  const emptyList = await sendRequest('/api/v4/oco-orders', venue('request_oco_orders'));
  expect(emptyList).toEqual({ status: 200, body: [] });
  // OCO margin lives on the collateral account: empty until funded, so fund it by the documented transfer.
  expect(await sendRequest('/api/v4/collateral-account/balance', {})).toEqual({ status: 200, body: {} });
  expect(await sendRequest('/api/v4/main-account/transfer', { ...venue('request_main_account_transfer'), ticker: 'USDT', amount: '1000', to: 'collateral' }))
    .toEqual({ status: 201, body: [] });
  expect(await sendRequest('/api/v4/collateral-account/balance', { ticker: 'USDT' })).toEqual({ status: 200, body: { USDT: 1000 } });
  const oco = await sendRequest('/api/v4/order/collateral/oco', venue('request_order_collateral_oco'));
  expect(oco.status).toBe(200);
  const documentedCreate = venue('http_post_order_collateral_oco');
  expectDocumentedFields(oco.body, documentedCreate);
  expectDocumentedFields(oco.body.stop_loss, documentedCreate['stop_loss'] as Record<string, unknown>);
  expectDocumentedFields(oco.body.take_profit, documentedCreate['take_profit'] as Record<string, unknown>);
  // As documented: the legs carry "" although the request sent order1987111 (the OCO itself keeps it).
  expect([oco.body.stop_loss.clientOrderId, oco.body.take_profit.clientOrderId]).toEqual(['', '']);
  const list = await sendRequest('/api/v4/oco-orders', venue('request_oco_orders'));
  expect(list.status).toBe(200);
  const [listed] = list.body as Record<string, any>[];
  const documentedList = (venue('http_post_oco_orders') as unknown as Record<string, any>[])[0]!;
  expect(listed!['id']).toBe(oco.body.id);
  expectDocumentedFields(listed!, documentedList);
  expectDocumentedFields(listed!['stop_loss'], documentedList['stop_loss']);
  expectDocumentedFields(listed!['take_profit'], documentedList['take_profit']);
  expect(listed!['stop_loss']).toMatchObject({ activation_price: '41000', activation_condition: 'gte', activated: 0, post_only: false, status: 'OPEN' });
});

test('the simulator refuses what the venue dialect does not know, naming the field (code 30)', async () => {
  // The spec's spelling of the id: a dialect mismatch fails here, not with money.
  const { clientOrderId: _omit, ...rest } = venue('request_order_stop_limit');
  const res = await sendRequest('/api/v4/order/stop_limit', { ...rest, client_order_id: 'order-x' });
  expect(res.status).toBe(422);
  expect(res.body).toMatchObject({ code: 30, message: 'Validation failed' });
  expect(Object.keys(res.body.errors)).toEqual(['client_order_id']);
  // ... and the spec's OCO list path does not exist on the venue.
  expect((await sendRequest('/api/v4/orders/oco', { market: 'BTC_USDT' })).status).toBe(404);
});
