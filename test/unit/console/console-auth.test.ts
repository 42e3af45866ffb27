import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { isLoopback } from '../../../src/app/console-wiring';
import { parseConfig } from '../../../src/config/load';
import { AuthFailures } from '../../../src/console/auth-failures';
import { pathMatcher } from '../../../src/console/routes';
import { mintToken, TokenBook, tokenSha256 } from '../../../src/console/token-book';

describe('console tokens', () => {
  const op = mintToken();
  const viewer = mintToken();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tb-console-'));
    writeFileSync(path.join(dir, 'viewer'), `${viewer}\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('identifies a token by its hash or its file, and only a Bearer header', () => {
    const book = TokenBook.fromConfig({ tokens: [{ name: 'op', role: 'operator', sha256: tokenSha256(op) }, { name: 'phone', role: 'viewer', file: path.join(dir, 'viewer') }] });
    expect(book.identify(`Bearer ${op}`)).toEqual({ name: 'op', role: 'operator' });
    expect(book.identify(`Bearer ${viewer}`)).toEqual({ name: 'phone', role: 'viewer' });
    expect(book.identify(undefined)).toBeUndefined();
    expect(book.identify(`Bearer ${op}x`)).toBeNull();
    expect(book.identify(op)).toBeNull(); // no scheme
    expect(book.identify(`Basic ${op}`)).toBeNull();
    expect(book.identify('Bearer short')).toBeNull();
  });

  it('mints 43-character base64url tokens, never twice the same', () => {
    expect(op).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(op).not.toBe(viewer);
  });

  it('a token file that cannot be read is a config error naming the token, never its content', () => {
    expect(() => TokenBook.fromConfig({ tokens: [{ name: 'gone', role: 'viewer', file: path.join(dir, 'missing') }] })).toThrow(/console.tokens\[gone\].file .*ENOENT/);
  });
});

describe('console config', () => {
  const base = { mode: 'paper', paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '1' } }, strategies: { enabled: [{ name: 'sma-cross' }] } };
  it('refuses unknown keys, a token in clear, both or neither of sha256 and file, and a name used twice', () => {
    expect(() => parseConfig({ ...base, console: { enabled: true, colour: 'red' } }, {})).toThrow(/colour/);
    expect(() => parseConfig({ ...base, console: { tokens: [{ name: 'a', role: 'operator', token: 'x' }] } }, {})).toThrow();
    expect(() => parseConfig({ ...base, console: { tokens: [{ name: 'a', role: 'operator', sha256: 'A'.repeat(64) }] } }, {})).toThrow(/64 lowercase hex/);
    expect(() => parseConfig({ ...base, console: { tokens: [{ name: 'a', role: 'operator' }] } }, {})).toThrow(/exactly one of sha256 or file/);
    const t = { role: 'viewer', sha256: 'a'.repeat(64) };
    expect(() => parseConfig({ ...base, console: { tokens: [{ name: 'a', ...t }, { name: 'a', ...t }] } }, {})).toThrow(/used twice/);
    expect(() => parseConfig({ ...base, console: { tokens: [{ name: 'a', role: 'admin', sha256: 'a'.repeat(64) }] } }, {})).toThrow();
  });

  it('defaults to off, on loopback', () => {
    expect(parseConfig(base, {}).console).toMatchObject({ enabled: false, host: '127.0.0.1', port: 8080, behindTlsProxy: false, tokens: [] });
  });

  it('knows loopback addresses', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', 'localhost'].map(isLoopback)).toEqual([true, true, true, true]);
    expect(['0.0.0.0', '10.0.0.1', '::', 'example.com', '127.0.0.1.example.com'].map(isLoopback)).toEqual([false, false, false, false, false]);
  });
});

describe('failed authentications per address', () => {
  it('blocks an address after the limit for a minute, and forgets it after', () => {
    let now = 0;
    const f = new AuthFailures(3, () => now);
    for (let i = 0; i < 3; i++) f.record('10.0.0.1');
    expect(f.blocked('10.0.0.1')).toBe(true);
    expect(f.blocked('10.0.0.2')).toBe(false);
    now = 60_001;
    expect(f.blocked('10.0.0.1')).toBe(false);
  });

  it('remembers a bounded number of addresses', () => {
    const f = new AuthFailures(1, () => 0, 2);
    f.record('a');
    f.record('b');
    f.record('c');
    expect([f.blocked('a'), f.blocked('b'), f.blocked('c')]).toEqual([false, true, true]);
  });
});

describe('path templates', () => {
  it('match only whole paths and decode their parameters', () => {
    const m = pathMatcher('/api/v1/orders/{clientOrderId}/cancel');
    expect(m('/api/v1/orders/tb-a%3Ab/cancel')).toEqual({ clientOrderId: 'tb-a:b' });
    expect(m('/api/v1/orders/a/b/cancel')).toBeUndefined();
    expect(m('/api/v1/orders//cancel')).toBeUndefined();
    expect(m('/api/v1/orders/x/cancelx')).toBeUndefined();
    expect(() => m('/api/v1/orders/%E0/cancel')).toThrow(URIError);
  });
});
