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
});
