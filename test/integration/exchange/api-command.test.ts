import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifySignature } from '../../../src/exchange/http/sign';
import { runCli as runCliWith, type CliResult } from '../../helpers/run-cli';
import { startServer, type LoopbackServer } from './loopback-server';

// Runs the built CLI (`npm run build` first, as `npm test` does) as a child process against a
// loopback server, the way an operator would.
const ROOT = join(__dirname, '../../..');
const MAIN = join(ROOT, 'dist/src/main.js');
const SECRET = 'cli-secret-must-never-be-printed';
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(ROOT, 'test/fixtures', `${name}.json`), 'utf8'));

function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCliWith(args, { TRADEBOT_API_KEY: 'cli-key', TRADEBOT_API_SECRET: SECRET, ...env });
}

let server: LoopbackServer;
beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first`);
  server = await startServer((req) => {
    // The clock measurement before a signed call gets the real time (a 2021 fixture is 5 years off: refused, warned).
    if (req.method === 'GET') return { body: req.url === '/api/v4/public/time' ? { time: Math.floor(Date.now() / 1000) } : fixture('http_get_time') };
    const ok = verifySignature(String(req.headers['x-txc-payload']), String(req.headers['x-txc-signature']), SECRET);
    if (!ok) return { status: 401, body: { code: 10, message: 'Unauthorized request.', errors: {} } };
    const body = JSON.parse(req.body) as Record<string, unknown>;
    if (body['ticker'] === 'NOPE') {
      return { status: 422, body: fixture('http_post_trade_account_balance_error') };
    }
    return { body: fixture('http_post_trade_account_balance') };
  });
});
afterAll(() => server.close());

describe('tradebot api', () => {
  test('POST is signed and the JSON answer is printed', async () => {
    const r = await runCli(['api', 'POST', '/api/v4/trade-account/balance', '--body', '{"ticker":"BTC"}', '--base-url', server.url]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(fixture('http_post_trade_account_balance'));
    const sent = JSON.parse(server.requests.at(-1)!.body) as Record<string, unknown>;
    expect(sent).toMatchObject({ request: '/api/v4/trade-account/balance', nonceWindow: true, ticker: 'BTC' });
  });

  test('GET with --query and TRADEBOT_BASE_URL', async () => {
    const r = await runCli(['api', 'GET', '/api/v4/public/time', '--query', 'a=1', '--query', 'b=x y'], { TRADEBOT_BASE_URL: server.url });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ time: 1631451591 });
    expect(server.requests.at(-1)!.url).toBe('/api/v4/public/time?a=1&b=x+y');
  });

  test('a server clock years off is not followed for the nonce: a warning on stderr, the call goes on', async () => {
    const skewed = await startServer((req) => (req.method === 'GET'
      ? { body: fixture('http_get_time') }
      : { body: fixture('http_post_trade_account_balance') }));
    try {
      const r = await runCli(['api', 'POST', '/api/v4/trade-account/balance', '--base-url', skewed.url]);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/^warning: server clock -\d+ s off the local clock \(limit 60 s\): not followed, the nonce uses the local clock\n$/);
      const nonce = Number((JSON.parse(skewed.requests.at(-1)!.body) as { nonce: string }).nonce);
      expect(Math.abs(nonce - Date.now())).toBeLessThan(60_000);
    } finally {
      await skewed.close();
    }
  });

  test('a venue error prints the typed error to stderr, exits non-zero, and never the secret or signature', async () => {
    const r = await runCli(['api', 'POST', '/api/v4/trade-account/balance', '--body', '{"ticker":"NOPE"}', '--base-url', server.url]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('TB_ERR_EXCHANGE_VALIDATION ExchangeValidationError');
    expect(r.stderr).toContain('ticker: Ticker field format is invalid.');
    expect(r.stderr).toContain('venue code: 30');
    const sent = server.requests.at(-1)!;
    for (const secretish of [SECRET, String(sent.headers['x-txc-signature']), String(sent.headers['x-txc-payload'])]) {
      expect(r.stdout + r.stderr).not.toContain(secretish);
    }
  });

  test('wrong secret -> AuthenticationError; missing credentials -> ConfigError; both exit non-zero', async () => {
    const auth = await runCli(['api', 'POST', '/api/v4/main-account/balance', '--base-url', server.url], { TRADEBOT_API_SECRET: 'wrong-secret' });
    expect(auth.code).not.toBe(0);
    expect(auth.stderr).toContain('TB_ERR_AUTH');
    expect(auth.stderr).not.toContain('wrong-secret');
    const missing = await runCli(['api', 'POST', '/api/v4/main-account/balance', '--base-url', server.url], { TRADEBOT_API_SECRET: '' });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('TB_ERR_CONFIG');
  });
});
