import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AuthenticationError, DuplicateClientOrderIdError, ExchangeRejectedError, ExchangeUnavailableError, ExchangeValidationError,
  InsufficientFundsError, OrderNotFoundError, RateLimitedError, BadResponseError, RedirectRefusedError, RegionRefusedError,
  RequestTimeoutError, RequestValidationError, ResponseTooLargeError,
} from '../../../src/domain/errors';
import { errorClassOf, retryRuleOf, RETRY_POLICY } from '../../../src/exchange/http/error-policy';
import { classifyAnswer, isErrorShape, type VenueAnswer } from '../../../src/exchange/http/errors';

const fixture = (name: string): unknown => JSON.parse(readFileSync(join(__dirname, '../../fixtures', `${name}.json`), 'utf8'));
const priv = (status: number, body: unknown): VenueAnswer => ({ endpoint: 'stopLimit', path: '/api/v4/order/stop_limit', isPrivate: true, status, body });
const pub = (status: number, body: unknown): VenueAnswer => ({ endpoint: 'kline', path: '/api/v1/public/kline', isPrivate: false, status, body });
const body = (code: number, message: string, errors: Record<string, string[]> = {}) => ({ code, message, errors });

describe('venue error table', () => {
  test.each([
    ['code 30 validation', priv(422, body(30, 'Validation failed', { side: ["Side field should contain only 'buy' or 'sell' values."] })), ExchangeValidationError],
    ['code 0 validation', priv(422, body(0, 'Validation failed', { amount: ['Amount should be greater than 0.'] })), ExchangeValidationError],
    ['unauthorized', priv(400, body(10, 'Unauthorized request.')), AuthenticationError],
    ['invalid payload', priv(400, body(9, 'Invalid payload.')), AuthenticationError],
    ['key disabled', priv(400, body(2, 'This action is unauthorized. Enable your key in API settings')), AuthenticationError],
    ['key permission', priv(400, body(4, 'This API Key is not authorized to perform this action.')), AuthenticationError],
    ['HTTP 401', priv(401, undefined), AuthenticationError],
    ['HTTP 403', priv(403, { message: 'Forbidden' }), AuthenticationError],
    ['code 10 not enough balance', priv(400, body(10, 'Inner validation failed', { amount: ['Not enough balance.'] })), InsufficientFundsError],
    ['code 2 order not found', priv(400, fixture('venue/http_post_order_cancel_error')), OrderNotFoundError],
    ['code 36 duplicate client order id', priv(422, body(36, 'Validation failed', { clientOrderId: ['This client order id is already used by the current account.'] })), DuplicateClientOrderIdError],
    ['code 36 bad format stays validation', priv(422, body(36, 'Validation failed', { clientOrderId: ['Client order id field should be a string.'] })), ExchangeValidationError],
    ['code 15 try again later', priv(400, body(15, 'Inner validation failed', { error: ['Please try again later.'] })), ExchangeUnavailableError],
    ['code 16 try again later', priv(400, body(16, 'Inner validation failed', { error: ['Please try again later.'] })), ExchangeUnavailableError],
    ['HTTP 503 non-JSON', priv(503, undefined), ExchangeUnavailableError],
    ['HTTP 500 internal', priv(500, { error: ['Internal server error.'] }), ExchangeUnavailableError],
    ['code 11 amount too small', priv(400, body(11, 'Inner validation failed', { amount: ['Amount too small.'] })), ExchangeRejectedError],
    ['kline field error (HTTP 200)', pub(200, fixture('http_get_kline_error')), ExchangeValidationError],
    ['public v4 flat 422', pub(422, { market: ['Market is not available.'] }), ExchangeValidationError],
  ])('%s', (_name, answer, expected) => {
    const err = classifyAnswer(answer);
    expect(err).toBeInstanceOf(expected);
    expect(err.constructor).toBe(expected);
  });

  test('429: the nonce case only on a private endpoint with code 0 and "Too many requests."', () => {
    const nonce = classifyAnswer(priv(429, fixture('http_post_nonce_rejected')));
    expect(nonce).toBeInstanceOf(RateLimitedError);
    expect(nonce.context['nonce']).toBe(true);
    const plain = classifyAnswer(pub(429, undefined));
    expect(plain).toBeInstanceOf(RateLimitedError);
    expect(plain.context['nonce']).toBe(false);
  });

  test('nonce outside the window is the nonce case too', () => {
    const err = classifyAnswer(priv(400, body(0, 'Your nonce is more than 5 seconds lesser than the current nonce')));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.context['nonce']).toBe(true);
  });

  test('field errors, venue code and HTTP status are carried', () => {
    const err = classifyAnswer(priv(422, fixture('http_post_orders_oco_error'))) as ExchangeValidationError;
    expect(err.fieldErrors).toEqual({ limit: ['The limit may not be greater than 100.'] });
    expect(err.venueCode).toBe(30);
    expect(err.httpStatus).toBe(422);
    expect(err.message).toBe('stopLimit: Validation failed (limit: The limit may not be greater than 100.)');
    const kline = classifyAnswer(pub(200, fixture('http_get_kline_error'))) as ExchangeValidationError;
    expect(kline.fieldErrors).toEqual({ end: ['End field must be greater then start.'] });
  });

  test('error shapes inside HTTP 200', () => {
    expect(isErrorShape(pub(200, { success: false, message: 'x', result: null }))).toBe(true);
    expect(isErrorShape(pub(200, { success: true, message: null, result: [] }))).toBe(false);
    expect(isErrorShape(priv(200, body(30, 'Validation failed')))).toBe(true);
    expect(isErrorShape(priv(200, { total: 1, data: [{ code: 'X' }] }))).toBe(false);
  });
});

describe('the one error table, row by row: HTTP status x venue code x message -> class -> retry rule', () => {
  const nonce = body(0, 'Too many requests.');
  test.each([
    // status, body, private?, expected class, retry rule
    ['401 bad signature', 401, body(10, 'Unauthorized request.'), true, 'auth', 'never'],
    ['401 payload missing', 401, body(9, 'Payload not provided.'), true, 'auth', 'never'],
    ['401 with code 0 and no known message', 401, body(0, 'Unauthenticated.'), true, 'auth', 'never'],
    ['401 with an empty body', 401, undefined, true, 'auth', 'never'],
    ['403 key permission', 403, body(4, 'This API Key is not authorized to perform this action.'), true, 'auth', 'never'],
    ['400 key disabled (code 2, auth message)', 400, body(2, 'This action is unauthorized. Enable your key in API settings'), true, 'auth', 'never'],
    ['429 nonce refusal', 429, nonce, true, 'nonce', 'resyncClock'],
    ['nonce outside the window', 429, body(0, 'Your nonce is more than 5 seconds lesser than the current nonce.'), true, 'nonce', 'resyncClock'],
    ['429 public rate limit (non-JSON)', 429, undefined, false, 'rateLimit', 'backoff'],
    ['429 private rate limit with another body', 429, body(1, 'Slow down'), true, 'rateLimit', 'backoff'],
    ['422 code 30 validation', 422, body(30, 'Validation failed', { side: ['bad'] }), true, 'validation', 'never'],
    ['422 code 0 validation', 422, body(0, 'Validation failed', { amount: ['Amount should be greater than 0.'] }), true, 'validation', 'never'],
    ['422 code 31 market', 422, body(31, 'Validation failed', { market: ['Market is not available.'] }), true, 'validation', 'never'],
    ['422 code 33 price step', 422, body(33, 'Validation failed', { price: ['Min price step = 0.01'] }), true, 'validation', 'never'],
    ['422 code 36 duplicate client order id', 422, body(36, 'Validation failed', { clientOrderId: ['This client order id is already used by the current account.'] }), true, 'duplicate', 'never'],
    ['400 code 10 not enough balance', 400, body(10, 'Inner validation failed', { amount: ['Not enough balance.'] }), true, 'funds', 'never'],
    ['422 code 32 not enough balance', 422, body(32, 'Validation failed', { amount: ['Not enough balance.'] }), true, 'funds', 'never'],
    ['400 code 2 order not found', 400, body(2, 'Inner validation failed', { orderId: ['Unexecuted order was not found.'] }), true, 'notFound', 'never'],
    ['400 OCO 150 limit leg cannot be placed', 400, body(150, 'Inner validation failed', { price: ["Can't place limit order"] }), true, 'validation', 'never'],
    ['400 OCO 151 wrong stop-loss activation price', 400, body(151, 'Inner validation failed', { activationPrice: ['Wrong activation price for stop loss'] }), true, 'validation', 'never'],
    ['400 OCO 152 no balance for the stop-limit', 400, body(152, 'Inner validation failed', { amount: ['Not enough balance for stop-limit order'] }), true, 'funds', 'never'],
    ['400 OCO 153 no balance for the limit leg', 400, body(153, 'Inner validation failed', { amount: ['Not enough balance for limit order'] }), true, 'funds', 'never'],
    ['453 region refusal', 453, body(30, 'Validation failed', { orderType: ['This order type is not available'] }), true, 'region', 'never'],
    ['400 code 11 amount too small', 400, body(11, 'Inner validation failed', { amount: ['Amount too small.'] }), true, 'rejected', 'never'],
    ['400 code 15 try again later', 400, body(15, 'Inner validation failed', { error: ['Please try again later.'] }), true, 'server', 'failover'],
    ['500 internal', 500, { error: ['Internal server error.'] }, true, 'server', 'failover'],
    ['503 maintenance (non-JSON)', 503, undefined, false, 'server', 'failover'],
    ['200 kline field error', 200, { success: false, message: { end: ['End field must be greater then start.'] }, result: null }, false, 'validation', 'never'],
    ['422 public flat body', 422, { market: ['Market is not available.'] }, false, 'validation', 'never'],
  ] as const)('%s', (_name, status, answerBody, isPrivate, cls, rule) => {
    const err = classifyAnswer({ endpoint: 'stopLimit', path: '/api/v4/order/stop_limit', isPrivate, status, body: answerBody });
    expect(errorClassOf(err)).toBe(cls);
    expect(retryRuleOf(err)).toBe(rule);
    expect(RETRY_POLICY[cls]).toBe(rule);
  });

  test('errors of the wire itself', () => {
    const ctx = { endpoint: 'kline' };
    expect(errorClassOf(new RequestTimeoutError('t', ctx))).toBe('timeout');
    expect(retryRuleOf(new RequestTimeoutError('t', ctx))).toBe('backoff');
    expect(retryRuleOf(new BadResponseError('b', ctx))).toBe('backoff');
    expect(retryRuleOf(new RedirectRefusedError('r', { ...ctx, httpStatus: 307 }))).toBe('never');
    expect(retryRuleOf(new ResponseTooLargeError('l', ctx))).toBe('never');
    expect(errorClassOf(new ExchangeUnavailableError('c', { errorCode: 'ECONNREFUSED' }))).toBe('network');
    expect(retryRuleOf(new ExchangeUnavailableError('c', { errorCode: 'ECONNRESET' }))).toBe('failover');
    expect(retryRuleOf(new RequestValidationError('v', { side: ['bad'] }))).toBe('never');
    expect(retryRuleOf(new Error('a bug'))).toBe('never');
  });

  test('a 453 is a RegionRefusedError (an ExchangeValidationError naming orderType)', () => {
    const err = classifyAnswer(priv(453, body(30, 'Validation failed', { orderType: ['This order type is not available'] })));
    expect(err).toBeInstanceOf(RegionRefusedError);
    expect(err).toBeInstanceOf(ExchangeValidationError);
    expect(err.code).toBe('TB_ERR_REGION_REFUSED');
    expect(err.message).toBe('stopLimit: Validation failed (orderType: This order type is not available)');
  });

  test('validation errors name every field in the message', () => {
    const err = classifyAnswer(priv(422, body(30, 'Validation failed', { amount: ['Min amount step = 0.001'], price: ['Price should be greater than 0.'] })));
    expect(err.message).toBe('stopLimit: Validation failed (amount: Min amount step = 0.001; price: Price should be greater than 0.)');
  });
});
