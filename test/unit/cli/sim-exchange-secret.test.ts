import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSimOptions } from '../../../src/cli/sim-exchange-command';

const noKey = { port: '0', host: '127.0.0.1', market: [], speed: '0', seed: '1', rateLimits: true, dialect: 'venue', unknownFields: 'refuse', ocoLegIds: 'empty', region: 'global' };
const base = { ...noKey, apiKey: 'k' };

describe('sim-exchange: the API secret never comes from the command line', () => {
  let dir: string;
  let secretFile: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tradebot-sim-secret-'));
    secretFile = join(dir, 'sim-secret');
    writeFileSync(secretFile, 'file-secret\n');
    chmodSync(secretFile, 0o600);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('--api-secret is refused, saying why and what to use, without echoing the value', () => {
    let message = '';
    try {
      parseSimOptions({ ...base, apiSecret: 'pasted-secret-value' }, {});
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/^--api-secret is refused: a secret on the command line can be read by every user .*ps.*pm2 jlist.*--api-secret-file F/);
    expect(message).not.toContain('pasted-secret-value');
  });

  test('the secret comes from --api-secret-file, TRADEBOT_SIM_API_SECRET_FILE or TRADEBOT_SIM_API_SECRET (trimmed)', () => {
    expect(parseSimOptions({ ...base, apiSecretFile: secretFile }, {}).apiSecret).toBe('file-secret');
    expect(parseSimOptions(base, { TRADEBOT_SIM_API_SECRET_FILE: secretFile }).apiSecret).toBe('file-secret');
    expect(parseSimOptions(base, { TRADEBOT_SIM_API_SECRET: 'env-secret' }).apiSecret).toBe('env-secret');
    expect(parseSimOptions(noKey, { TRADEBOT_SIM_API_KEY: 'ek', TRADEBOT_SIM_API_SECRET: 's' }).apiKey).toBe('ek');
  });

  test('one source only, and bad files are named without their content', () => {
    expect(() => parseSimOptions({ ...base, apiSecretFile: secretFile }, { TRADEBOT_SIM_API_SECRET: 'x' }))
      .toThrow('--api-secret-file: TRADEBOT_SIM_API_SECRET(_FILE) is set as well; give the secret one way');
    expect(() => parseSimOptions(base, { TRADEBOT_SIM_API_SECRET: 'x', TRADEBOT_SIM_API_SECRET_FILE: secretFile }))
      .toThrow('set either TRADEBOT_SIM_API_SECRET or TRADEBOT_SIM_API_SECRET_FILE, not both');
    expect(() => parseSimOptions({ ...base, apiSecretFile: join(dir, 'missing') }, {}))
      .toThrow(`credentials: --api-secret-file (${join(dir, 'missing')}) cannot be read: ENOENT`);
    const twoLines = join(dir, 'two-lines');
    writeFileSync(twoLines, 'abc\ndef\n');
    let message = '';
    try {
      parseSimOptions({ ...base, apiSecretFile: twoLines }, {});
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe('credentials: --api-secret-file contains a line break (CR/LF) at position 4; keys and secrets are printable ASCII');
  });

  test('key and secret go together, each message says what is missing', () => {
    expect(() => parseSimOptions(base, {})).toThrow(/--api-key needs its secret: --api-secret-file F, TRADEBOT_SIM_API_SECRET or TRADEBOT_SIM_API_SECRET_FILE/);
    expect(() => parseSimOptions(noKey, { TRADEBOT_SIM_API_SECRET: 's' })).toThrow(/no API key: add --api-key K/);
    // Neither: a simulator without an account (market data only).
    expect(parseSimOptions(noKey, {}).apiKey).toBeUndefined();
  });
});
