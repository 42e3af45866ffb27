import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { formatFindings, OPS_TEST_SECRET, scanDirectory, scanText, TEST_SECRETS } from '../../helpers/secret-scan';

/** The scanner behind the run-wide secret scan finds what is planted, and nothing in clean logs. */

const PLANTED = 'planted-secret-3c9e1f-for-the-scanner';
const body = JSON.stringify({ request: '/api/v4/order/new', nonce: 1700000000123, market: 'BTC_USDT' });
const payload = Buffer.from(body).toString('base64');
const signature = createHmac('sha512', PLANTED).update(payload).digest('hex');
const pinoLine = (fields: Record<string, unknown>) =>
  JSON.stringify({ level: 'info', time: '2026-01-01T00:00:00.000Z', name: 'tradebot', component: 'exchange', ...fields, msg: 'request sent' });

describe('scanText', () => {
  it('finds a planted secret anywhere in a line, once per occurrence, and masks it in the report', () => {
    const text = [pinoLine({ ok: true }), pinoLine({ err: { message: `auth failed for ${PLANTED}` } }), `Error: ${PLANTED}${PLANTED}`].join('\n');
    const findings = scanText(text, 'daemon.log', { secrets: [PLANTED] });
    expect(findings.map((f) => [f.kind, f.source, f.line])).toEqual([
      ['test_secret', 'daemon.log', 2], ['test_secret', 'daemon.log', 3], ['test_secret', 'daemon.log', 3],
    ]);
    expect(formatFindings(findings)).not.toContain(PLANTED);
    expect(formatFindings(findings)).toContain('daemon.log:2');
  });

  it('knows every test secret of the suite by default, the ops one included', () => {
    expect(TEST_SECRETS).toContain(OPS_TEST_SECRET);
    for (const secret of TEST_SECRETS) expect([secret, scanText(`x ${secret} y`, 's').length]).toEqual([secret, 1]);
  });

  it('finds an X-TXC-SIGNATURE, a 64-hex generated secret and a signed X-TXC-PAYLOAD by their shape', () => {
    const line = pinoLine({ headers: { 'X-TXC-SIGNATURE': signature } });
    expect(scanText(line, 's', { secrets: [] }).map((f) => f.kind)).toEqual(['signature']);
    const paperSecret = 'a3'.repeat(32);
    expect(scanText(`apiSecret=${paperSecret}`, 's', { secrets: [] }).map((f) => f.kind)).toEqual(['hex_secret']);
    expect(scanText(`"x-txc-payload":"${payload}"`, 's', { secrets: [] }).map((f) => f.kind)).toEqual(['signed_payload']);
  });

  it('reports nothing in ordinary daemon output (ids, prices, paths, redacted values)', () => {
    const text = [
      pinoLine({ clientOrderId: 'tb-churn-1a2b3c4d-00017', price: '43210.55', amount: '0.001', reqId: 'f3a1c2d4-9b8e' }),
      pinoLine({ apiSecret: '[REDACTED]', headers: { 'X-TXC-SIGNATURE': '[REDACTED]' }, url: 'http://127.0.0.1:40123/api/v4/order/new' }),
      pinoLine({ file: '/work/main/test/integration/app/strategies/broken.js', sha: 'deadbeef'.repeat(5) }),
      '    at Object.<anonymous> (/work/main/node_modules/some-module/lib/index.js:10:5)',
    ].join('\n');
    expect(scanText(text, 's')).toEqual([]);
  });
});

describe('scanDirectory', () => {
  it('scans every file below the directory and names the file of each hit', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tradebot-scan-'));
    try {
      mkdirSync(path.join(dir, 'pm2'));
      writeFileSync(path.join(dir, 'clean.log'), pinoLine({ ok: 1 }));
      writeFileSync(path.join(dir, 'pm2', 'tradebot-out.log'), `${pinoLine({ ok: 2 })}\n${pinoLine({ leaked: PLANTED })}\n`);
      const findings = scanDirectory(dir, { secrets: [PLANTED] });
      expect(findings.map((f) => [path.relative(dir, f.source), f.line])).toEqual([[path.join('pm2', 'tradebot-out.log'), 2]]);
      expect(scanDirectory(path.join(dir, 'missing'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
