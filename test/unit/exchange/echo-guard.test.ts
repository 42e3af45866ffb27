import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../../src/core/clock';
import { ClientOrderIdIgnoredError } from '../../../src/domain/errors';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import type { Transport, TransportRequest, TransportResponse } from '../../../src/exchange/http/transport';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';

/**
 * The echo guard's decisions on recorded venue answers (the cross-dialect case runs against a real
 * simulator in test/integration/execution/echo-guard.test.ts). A scripted transport answers each
 * path; what is asserted is what the guard sends next and what it throws.
 */
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(__dirname, '../../fixtures/venue', name), 'utf8')) as Record<string, unknown>;

class ScriptedTransport implements Transport {
  readonly sent: TransportRequest[] = [];
  constructor(private readonly answers: Readonly<Record<string, readonly [number, unknown]>>) {}
  send(request: TransportRequest): Promise<TransportResponse> {
    this.sent.push(request);
    const path = new URL(request.url).pathname;
    const [status, json] = this.answers[path] ?? [404, { message: 'no such path' }];
    return Promise.resolve({ status, json, text: JSON.stringify(json) });
  }
}

function client(transport: Transport): HttpExchangeClient {
  const clock = new ManualClock(1_700_000_000_000);
  return new HttpExchangeClient({
    baseUrl: 'http://venue.test', primaryRegion: 'global', credentials: { apiKey: 'k', apiSecret: 's' }, transport,
    nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 1000,
  });
}

const request = { market: 'BTC_USDT', side: 'buy', amount: '0.01', price: '40000', activationPrice: '40000' } as const;
const created = fixture('http_post_order_stop_limit.json');

test('an answer echoing the id sent is returned as is; nothing else is sent', async () => {
  const t = new ScriptedTransport({ '/api/v4/order/stop_limit': [200, created] });
  const report = await client(t).placeStopLimit({ ...request, clientOrderId: 'order1987111' });
  expect(report.clientOrderId).toBe('order1987111');
  expect(t.sent).toHaveLength(1);
});

test('no echo in our own dialect: the order is canceled by its exchange id, then ClientOrderIdIgnoredError', async () => {
  const t = new ScriptedTransport({
    '/api/v4/order/stop_limit': [200, { ...created, clientOrderId: '' }],
    '/api/v4/order/cancel': [200, { ...created, clientOrderId: '', status: 'CANCELED' }],
  });
  const error = await client(t).placeStopLimit({ ...request, clientOrderId: 'tb-1' }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ClientOrderIdIgnoredError);
  const e = error as ClientOrderIdIgnoredError;
  expect(e.context).toMatchObject({ sentClientOrderId: 'tb-1', echoedClientOrderId: undefined, answeredIn: 'venue', canceled: true, orderId: 4180284841 });
  expect(e.message).toContain('echoed no client order id instead of "tb-1"');
  expect(e.legs[0]?.status).toBe('CANCELED');
  const cancel = t.sent[1]!;
  expect(new URL(cancel.url).pathname).toBe('/api/v4/order/cancel');
  expect(JSON.parse(cancel.body!)).toMatchObject({ market: 'BTC_USDT', orderId: 4180284841 });
});

test('a different id echoed counts as ignored too', async () => {
  const t = new ScriptedTransport({
    '/api/v4/order/stop_limit': [200, { ...created, clientOrderId: 'someone-else' }],
    '/api/v4/order/cancel': [200, { ...created, status: 'CANCELED' }],
  });
  await expect(client(t).placeStopLimit({ ...request, clientOrderId: 'tb-1' })).rejects.toThrow(/echoed "someone-else" instead of "tb-1"/);
});

test('a cancel that fails is said in the error (cancel by hand), the create answer kept for the journal', async () => {
  const t = new ScriptedTransport({
    '/api/v4/order/stop_limit': [200, { ...created, clientOrderId: '' }],
    '/api/v4/order/cancel': [400, fixture('http_post_order_cancel_error.json')],
  });
  const e = (await client(t).placeStopLimit({ ...request, clientOrderId: 'tb-1' }).catch((x: unknown) => x)) as ClientOrderIdIgnoredError;
  expect(e).toBeInstanceOf(ClientOrderIdIgnoredError);
  expect(e.context['canceled']).toBe(false);
  expect(e.message).toContain('order 4180284841 could NOT be canceled');
  expect(e.message).toContain('cancel it by hand');
  expect(e.legs[0]).toMatchObject({ orderId: 4180284841, status: 'FILLED' });
});

describe('OCO answers: the venue documents legs WITHOUT the client order id', () => {
  type Leg = Record<string, unknown>;
  const recorded = fixture('http_post_order_collateral_oco.json') as { id: number; stop_loss: Leg; take_profit: Leg };
  // The documented example's legs differ in amount (example data); a real answer has the request's amount on both.
  const answer = (sl: Leg = {}, tp: Leg = {}) => ({
    ...recorded, stop_loss: { ...recorded.stop_loss, ...sl }, take_profit: { ...recorded.take_profit, amount: '2.241379', left: '2.241379', ...tp },
  });
  const ocoRequest = { market: 'BTC_USDT', side: 'buy', amount: '2.241379', price: '9928.79', activationPrice: '29928.79', stopLimitPrice: '19928.79', clientOrderId: 'tb-oco' } as const;
  const refused = async (created: unknown): Promise<{ error: ClientOrderIdIgnoredError; sent: TransportRequest[] }> => {
    const t = new ScriptedTransport({
      '/api/v4/order/collateral/oco': [200, created],
      '/api/v4/order/oco-cancel': [200, fixture('http_post_order_oco_cancel.json')],
    });
    const error = (await client(t).placeOco(ocoRequest).catch((x: unknown) => x)) as ClientOrderIdIgnoredError;
    return { error, sent: t.sent };
  };

  test('the documented answer ("clientOrderId": "" on both legs) is accepted; nothing else is sent', async () => {
    const t = new ScriptedTransport({ '/api/v4/order/collateral/oco': [200, answer()] });
    const oco = await client(t).placeOco(ocoRequest);
    expect([oco.id, oco.stopLoss.clientOrderId, oco.takeProfit.clientOrderId]).toEqual([recorded.id, undefined, undefined]);
    expect(t.sent).toHaveLength(1);
  });

  test('legs echoing the id sent are accepted too', async () => {
    const t = new ScriptedTransport({ '/api/v4/order/collateral/oco': [200, answer({ clientOrderId: 'tb-oco' }, { clientOrderId: 'tb-oco' })] });
    await expect(client(t).placeOco(ocoRequest)).resolves.toMatchObject({ id: recorded.id });
  });

  test('a leg carrying ANOTHER id: the OCO is canceled by its id and the error names the leg', async () => {
    const { error, sent } = await refused(answer({}, { clientOrderId: 'someone-else' }));
    expect(error).toBeInstanceOf(ClientOrderIdIgnoredError);
    expect(error.message).toContain('the take-profit leg carries "someone-else" instead of "tb-oco"');
    expect(error.ocoId).toBe(recorded.id);
    expect(error.context).toMatchObject({ ocoId: recorded.id, canceled: true });
    expect(error.legs).toHaveLength(2);
    expect(new URL(sent[1]!.url).pathname).toBe('/api/v4/order/oco-cancel');
    expect(JSON.parse(sent[1]!.body!)).toMatchObject({ market: 'BTC_USDT', orderId: recorded.id });
  });

  test('legs that do not describe the OCO sent (a price, the amount, the side): canceled, named', async () => {
    expect((await refused(answer({ activation_price: '29928.8' }))).error.message)
      .toContain('stop-loss activation price is 29928.8 in the answer, 29928.79 in the request');
    expect((await refused(answer({}, { price: '9928' }))).error.message).toContain('take-profit price is 9928 in the answer, 9928.79 in the request');
    expect((await refused(answer({ price: '19928.7' }))).error.message).toContain('stop-loss limit price is 19928.7');
    expect((await refused(answer({}, { amount: '0.635709' }))).error.message).toContain("the take-profit leg's amount is 0.635709 in the answer, 2.241379 in the request");
    expect((await refused(answer({ side: 'sell' }))).error.message).toContain('the stop-loss leg is a sell on BTC_USDT, not a buy on BTC_USDT');
  });
});
