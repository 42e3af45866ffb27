import { execFileSync } from 'node:child_process';
import { Decimal } from '../../../src/domain/decimal';
import { buildSignedBody, signRequest, verifySignature } from '../../../src/exchange/http/sign';

// Vector computed in the shell, independently of sign.ts:
//   printf '%s' "$BODY" | base64 -w0
//   printf '%s' "$PAYLOAD" | openssl dgst -sha512 -hmac 'test-secret-0123'
const BODY = '{"request":"/api/v4/trade-account/balance","nonce":"1700000000000","nonceWindow":true,"ticker":"BTC"}';
const PAYLOAD =
  'eyJyZXF1ZXN0IjoiL2FwaS92NC90cmFkZS1hY2NvdW50L2JhbGFuY2UiLCJub25jZSI6IjE3MDAwMDAwMDAwMDAiLCJub25jZVdpbmRvdyI6dHJ1ZSwidGlja2VyIjoiQlRDIn0=';
const SIGNATURE =
  '3c95bf81d0fbc2bc62af3e9be432b0a8006f664401b6d2e1a43e54cdff60381d054d364a7a523c252d825721b1432e0256a7b524b6761aa4ea61fca4838d5e90';
const SECRET = 'test-secret-0123';

function opensslHmac(payload: string, secret: string): string {
  const out = execFileSync('openssl', ['dgst', '-sha512', '-hmac', secret], { input: payload }).toString();
  return out.trim().split(/\s+/).pop()!;
}

describe('request signing', () => {
  test('body, base64 payload and HMAC-SHA512 match the openssl vector', () => {
    const signed = signRequest({ apiKey: 'k', apiSecret: SECRET }, '/api/v4/trade-account/balance', 1700000000000, { ticker: 'BTC' }, true);
    expect(signed.body).toBe(BODY);
    expect(signed.headers['X-TXC-PAYLOAD']).toBe(PAYLOAD);
    expect(signed.headers['X-TXC-SIGNATURE']).toBe(SIGNATURE);
    expect(signed.headers['X-TXC-APIKEY']).toBe('k');
    expect(signed.headers['Content-Type']).toBe('application/json');
  });

  test('a body with unicode and decimals signs like openssl over the same base64 bytes', () => {
    const body = buildSignedBody('/api/v4/order/stop_limit', '1700000000001', { market: 'BTC_USDT', amount: '0.001', note: 'é€' }, true);
    const payload = Buffer.from(body, 'utf8').toString('base64');
    const signed = signRequest({ apiKey: 'k', apiSecret: 'other secret' }, '/api/v4/order/stop_limit', '1700000000001', { market: 'BTC_USDT', amount: '0.001', note: 'é€' }, true);
    expect(signed.headers['X-TXC-PAYLOAD']).toBe(payload);
    expect(signed.headers['X-TXC-SIGNATURE']).toBe(opensslHmac(payload, 'other secret'));
  });

  test('request and nonce come first; nonceWindow only when given', () => {
    expect(buildSignedBody('/p', 5, { a: 1 }, undefined)).toBe('{"request":"/p","nonce":"5","a":1}');
    expect(buildSignedBody('/p', 5, {}, false)).toBe('{"request":"/p","nonce":"5","nonceWindow":false}');
  });

  test('verifySignature accepts the vector and refuses a changed payload', () => {
    expect(verifySignature(PAYLOAD, SIGNATURE, SECRET)).toBe(true);
    expect(verifySignature(PAYLOAD.replace('eyJ', 'eyK'), SIGNATURE, SECRET)).toBe(false);
    expect(verifySignature(PAYLOAD, SIGNATURE, 'wrong')).toBe(false);
  });

  test('the body is byte-identical to JSON.stringify of envelope + params, whatever the params', () => {
    // The signature covers these exact bytes, so the body must never depend on who wrote the params how.
    const values: unknown[] = [
      'BTC_USDT', '0.001', '', 'quote"inside', 'back\\slash', 'tab\there', 'é€', '\ud83d\ude00', '\ud800', 'x'.repeat(9000),
      0, -0, 1.5, 1e21, 1e-7, Number.NaN, Number.POSITIVE_INFINITY, true, false, null, undefined,
      new Decimal('2.5'), ['spot'], { nested: 1 },
    ];
    const keys = ['market', 'amount', 'client_order_id', 'bboRole', '10', 'request', 'nonce', 'nonceWindow', 'ké', 'a"b'];
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; i < 3000; i++) {
      const params: Record<string, unknown> = {};
      const count = Math.floor(random() * 5);
      for (let k = 0; k < count; k++) {
        const key = random() < 0.7 ? keys[Math.floor(random() * 3)]! : keys[Math.floor(random() * keys.length)]!;
        params[key] = values[Math.floor(random() * values.length)];
      }
      const nonce = random() < 0.8 ? 1_700_000_000_000 + i : String(i);
      const nonceWindow = [true, false, undefined][i % 3];
      const envelope: Record<string, unknown> = { request: '/api/v4/order/stop_limit', nonce: String(nonce) };
      if (nonceWindow !== undefined) envelope['nonceWindow'] = nonceWindow;
      const expected = JSON.stringify({ ...envelope, ...params });
      expect(buildSignedBody('/api/v4/order/stop_limit', nonce, params, nonceWindow)).toBe(expected);
      const signed = signRequest({ apiKey: 'k', apiSecret: SECRET }, '/api/v4/order/stop_limit', nonce, params, nonceWindow);
      expect(signed.body).toBe(expected);
      expect(signed.headers['X-TXC-PAYLOAD']).toBe(Buffer.from(expected, 'utf8').toString('base64'));
    }
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { market: 'BTC_USDT' });
    expect(buildSignedBody('/p', 1, bare, undefined)).toBe('{"request":"/p","nonce":"1","market":"BTC_USDT"}');
    expect(buildSignedBody('/p"q', 1, {}, undefined)).toBe('{"request":"/p\\"q","nonce":"1"}');
  });
});
