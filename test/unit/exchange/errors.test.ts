import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AuthenticationError, DuplicateClientOrderIdError, ExchangeRejectedError, ExchangeUnavailableError, ExchangeValidationError,
  InsufficientFundsError, OrderNotFoundError, RateLimitedError,
} from '../../../src/domain/errors';
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
    expect(err.message).toBe('stopLimit: Validation failed');
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
