import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { loadCredentials } from '../../../src/config/credentials';
import { ConfigError } from '../../../src/domain/errors';

const SECRET = 'test-secret-6f1d0c8e-never-print';

describe('credentials', () => {
  test('from the environment, the secret wrapped so it never prints', () => {
    const creds = loadCredentials({ TRADEBOT_API_KEY: 'key1', TRADEBOT_API_SECRET: SECRET }, { required: true });
    expect(creds?.apiKey).toBe('key1');
    expect(creds?.apiSecret.reveal()).toBe(SECRET);
    expect(JSON.stringify(creds)).not.toContain(SECRET);
    expect(inspect(creds, { depth: 5, showHidden: true })).not.toContain(SECRET);
    expect(`${String(creds?.apiSecret)}`).not.toContain(SECRET);
  });

  test('from files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tb-creds-'));
    writeFileSync(join(dir, 'key'), 'key2\n');
    writeFileSync(join(dir, 'secret'), `${SECRET}\n`);
    const creds = loadCredentials({ TRADEBOT_API_KEY_FILE: join(dir, 'key'), TRADEBOT_API_SECRET_FILE: join(dir, 'secret') }, { required: true });
    expect(creds?.apiKey).toBe('key2');
    expect(creds?.apiSecret.reveal()).toBe(SECRET);
  });

  test('missing, half-set, double-set and empty values are clear errors that never echo the secret', () => {
    expect(loadCredentials({}, { required: false })).toBeUndefined();
    expect(() => loadCredentials({}, { required: true })).toThrow(ConfigError);
    expect(() => loadCredentials({ TRADEBOT_API_KEY: 'k' }, { required: true })).toThrow(/TRADEBOT_API_SECRET is not/);
    expect(() => loadCredentials({ TRADEBOT_API_SECRET: SECRET }, { required: false })).toThrow(/TRADEBOT_API_KEY is not/);
    expect(() => loadCredentials({ TRADEBOT_API_KEY: 'k', TRADEBOT_API_SECRET: SECRET, TRADEBOT_API_SECRET_FILE: '/x' }, { required: true }))
      .toThrow(/not both/);
    expect(() => loadCredentials({ TRADEBOT_API_KEY: 'k', TRADEBOT_API_SECRET: '  ' }, { required: true })).toThrow(/empty/);
    try {
      loadCredentials({ TRADEBOT_API_KEY: 'k', TRADEBOT_API_SECRET_FILE: '/nonexistent/secret' }, { required: true });
    } catch (error) {
      expect((error as Error).message).toContain('cannot be read');
      expect((error as Error).message).not.toContain(SECRET);
    }
  });

  test.each([
    ['a CR/LF inside the key', { TRADEBOT_API_KEY: 'key\r\nX-Evil: 1', TRADEBOT_API_SECRET: SECRET }, 'TRADEBOT_API_KEY', /line break \(CR\/LF\)/],
    ['a LF inside the secret', { TRADEBOT_API_KEY: 'key', TRADEBOT_API_SECRET: `${SECRET}\nmore` }, 'TRADEBOT_API_SECRET', /line break/],
    ['a space inside the key', { TRADEBOT_API_KEY: 'key one', TRADEBOT_API_SECRET: SECRET }, 'TRADEBOT_API_KEY', /a space/],
    ['a tab inside the secret', { TRADEBOT_API_KEY: 'key', TRADEBOT_API_SECRET: `${SECRET}\tx` }, 'TRADEBOT_API_SECRET', /control or non-ASCII/],
    ['a non-ASCII key', { TRADEBOT_API_KEY: 'kéy', TRADEBOT_API_SECRET: SECRET }, 'TRADEBOT_API_KEY', /control or non-ASCII/],
    ['a blank key', { TRADEBOT_API_KEY: ' \r\n', TRADEBOT_API_SECRET: SECRET }, 'TRADEBOT_API_KEY', /is empty/],
  ])('%s is refused at config check, naming the variable and never the value', (_name, env, path, message) => {
    let caught: unknown;
    try {
      loadCredentials(env, { required: true });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).context['path']).toBe(path);
    expect((caught as ConfigError).message).toMatch(message);
    expect(JSON.stringify(caught)).not.toContain(SECRET);
  });

  test('a secret file with two lines is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tb-creds-'));
    writeFileSync(join(dir, 'key'), 'key2\n');
    writeFileSync(join(dir, 'secret'), `${SECRET}\nsecond-line\n`);
    expect(() => loadCredentials({ TRADEBOT_API_KEY_FILE: join(dir, 'key'), TRADEBOT_API_SECRET_FILE: join(dir, 'secret') }, { required: true }))
      .toThrow(/TRADEBOT_API_SECRET_FILE contains a line break/);
  });
});
