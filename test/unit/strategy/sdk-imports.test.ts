import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Decimal } from '../../../src/domain/decimal';
import { loadStrategies } from '../../../src/strategy/strategy-loader';

const REPO = path.resolve(__dirname, '../../..');

/** A strategy folder outside the repository (as a ConfigMap mount would be). */
function folder(files: Record<string, string>): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'tb-sdk-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const GOOD = `
import { defineStrategy, Decimal, z } from 'tradebot/strategy';
export const made = new Decimal(1);
export default defineStrategy({ name: 'outside', markets: ['BTC_USDT'], interval: '1m', warmup: 0, params: z.object({}), onCandle: () => [] });
`;

test("a module outside the repository imports 'tradebot/strategy' and shares the daemon's Decimal", () => {
  const f = folder({ 'outside.ts': GOOD });
  try {
    const r = loadStrategies(f.dir);
    expect(r.errors).toEqual([]);
    expect(r.strategies.map((s) => s.name)).toEqual(['outside']);
  } finally {
    f.cleanup();
  }
  expect(new Decimal(1)).toBeInstanceOf(Decimal);
});

test.each([
  ['the exchange client from src', `import { HttpExchangeClient } from '${path.join(REPO, 'src/exchange/http/client')}';\nexport const c = HttpExchangeClient;`, /outside\.ts imports '.*src\/exchange\/http\/client' \(src\/exchange\/http\/client is a daemon internal\)/],
  ['compiled code from dist', `const c = require('${path.join(REPO, 'dist/src/config/credentials.js')}');`, /dist\/src\/config\/credentials\.js is a daemon internal/],
  ['a deep package path', `import { loadConfig } from 'tradebot/dist/src/config/load';\nexport const l = loadConfig;`, /'tradebot\/dist\/src\/config\/load' \(tradebot\/dist\/src\/config\/load is not part of the SDK\)/],
  ['the package root', `const t = require('tradebot');`, /'tradebot' \(tradebot is not part of the SDK\)/],
])('a module importing %s is refused, naming the import and what to use instead', (_what, line, message) => {
  const f = folder({ 'outside.ts': `${line}\n${GOOD}` });
  try {
    const r = loadStrategies(f.dir);
    expect(r.strategies).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.message).toMatch(message);
    expect(r.errors[0]!.message).toMatch(/a strategy may import 'tradebot\/strategy', packages and its own helper files only/);
    expect(r.errors[0]!.context['reason']).toBe('load');
  } finally {
    f.cleanup();
  }
});

test('a helper file importing internals is refused too, and the message names the helper', () => {
  const f = folder({
    '_helper.ts': `import { loadCredentials } from '${path.join(REPO, 'src/config/credentials')}';\nexport const x = loadCredentials;`,
    'outside.ts': `import { x } from './_helper';\nexport const y = x;\n${GOOD}`,
  });
  try {
    const r = loadStrategies(f.dir);
    expect(r.errors[0]!.message).toMatch(/failed to load: _helper\.ts imports '.*src\/config\/credentials'/);
  } finally {
    f.cleanup();
  }
});

test('an import of internals at run time (inside onCandle) is refused the same way', async () => {
  const f = folder({
    'outside.ts': `import { defineStrategy, z } from 'tradebot/strategy';
export default defineStrategy({ name: 'late', markets: ['BTC_USDT'], interval: '1m', warmup: 0, params: z.object({}),
  onCandle: () => { require('${path.join(REPO, 'src/config/credentials')}'); return []; } });`,
  });
  try {
    const r = loadStrategies(f.dir);
    const def = r.strategies[0]!.definition;
    expect(() => def.onCandle({} as never)).toThrow(/daemon internal/);
  } finally {
    f.cleanup();
  }
});
