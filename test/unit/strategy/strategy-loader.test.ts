import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { findStrategy, loadStrategies, isStrategyFile } from '../../../src/strategy/strategy-loader';
import { StrategyLoadError } from '../../../src/domain/errors';
import { Decimal } from '../../../src/domain/decimal';
import { StrategyHost } from '../../../src/strategy/strategy-host';
import { ManualClock } from '../../../src/core/clock';
import { readCandles } from './candle-fixture';

const FIXTURES = path.resolve(__dirname, '../../fixtures/strategies');
const STRATEGIES = path.resolve(__dirname, '../../../strategies');

function errorFor(errors: readonly StrategyLoadError[], file: string): StrategyLoadError | undefined {
  return errors.find((e) => e.context['file'] === path.join(FIXTURES, file));
}

describe('loadStrategies', () => {
  const result = loadStrategies(FIXTURES);

  test('loads the good .ts, CommonJS .js and ESM-syntax .js modules', () => {
    expect(result.strategies.map((s) => s.name).sort()).toEqual(['esm-js', 'good-js', 'good-ts']);
    const good = result.strategies.find((s) => s.name === 'good-ts')!;
    expect(good.file).toBe(path.join(FIXTURES, 'good-ts.ts'));
    expect(good.params).toEqual({ size: '0.01', factor: 2 });
    expect(good.window).toBe(2);
  });

  test('reports each bad module with its file and reason while the others load', () => {
    expect(errorFor(result.errors, 'throws-on-load.ts')?.message).toMatch(/failed to load: boom at load/);
    expect(errorFor(result.errors, 'missing-on-candle.ts')?.message).toMatch(/onCandle/);
    expect(errorFor(result.errors, 'syntax-error.js')?.context['reason']).toBe('load');
    expect(errorFor(result.errors, 'bad-import.js')?.message).toMatch(/does-not-exist/);
    expect(errorFor(result.errors, 'no-default-param.ts')?.message).toMatch(/strategy no-default-param: parameter threshold/);
    expect(result.errors).toHaveLength(5);
    for (const e of result.errors) {
      expect(e).toBeInstanceOf(StrategyLoadError);
      expect(e.code).toBe('TB_ERR_STRATEGY_LOAD');
    }
  });

  test('skips helpers, declarations and tests', () => {
    expect(isStrategyFile('_helper.ts')).toBe(false);
    expect(isStrategyFile('x.d.ts')).toBe(false);
    expect(isStrategyFile('x.test.ts')).toBe(false);
    expect(isStrategyFile('x.ts')).toBe(true);
    expect(isStrategyFile('x.js')).toBe(true);
    expect(isStrategyFile('x.json')).toBe(false);
  });

  test('config overrides params and markets; a bad override names the strategy and parameter', () => {
    const r = loadStrategies(FIXTURES, {
      config: {
        'good-ts': { params: { factor: 0 } },
        'good-js': { markets: ['BTC_USDT', 'ETH_USDT'], params: { n: 7 } },
        'esm-js': { enabled: false },
        'no-such': {},
      },
    });
    const goodTs = r.errors.find((e) => e.context['strategy'] === 'good-ts');
    expect(goodTs?.message).toBe('strategy good-ts: parameter factor: Too small: expected number to be >=1');
    expect(goodTs?.context['param']).toBe('factor');
    const js = r.strategies.find((s) => s.name === 'good-js')!;
    expect(js.markets).toEqual(['BTC_USDT', 'ETH_USDT']);
    expect(js.params).toEqual({ n: 7 });
    expect(r.disabled).toEqual(['esm-js']);
    expect(r.errors.find((e) => e.context['strategy'] === 'no-such')?.context['reason']).toBe('unknown');
  });

  test('a loaded .ts strategy shares the host Decimal and runs in the host', async () => {
    const good = result.strategies.find((s) => s.name === 'good-ts')!;
    const host = new StrategyHost({ strategies: [good], clock: new ManualClock(0) });
    const candles = readCandles('btc_usdt-1m-binance-2021-09.csv', 5);
    const out = [];
    for (const c of candles) out.push(...(await host.handleCandle('BTC_USDT', '1m', c)));
    expect(out).toHaveLength(1);
    expect(out[0]!.candleTime).toBe(candles[2]!.time);
    const intent = out[0]!.intent;
    expect(intent.kind).toBe('stop_limit');
    if (intent.kind === 'stop_limit') {
      expect(intent.amount).toBeInstanceOf(Decimal);
      expect(intent.price.toString()).toBe(candles[2]!.close.times(4).toString());
    }
  });

  test('loads the example strategies of strategies/ (they import ./_sizing and tradebot/strategy)', () => {
    const r = loadStrategies(STRATEGIES);
    expect(r.errors).toEqual([]);
    expect(r.strategies.map((s) => s.name)).toEqual(['donchian-breakout', 'rsi-reversion', 'sma-cross']);
  });

  test('an unreadable directory throws StrategyLoadError', () => {
    expect(() => loadStrategies(path.join(FIXTURES, 'nope'))).toThrow(StrategyLoadError);
  });
});

describe('findStrategy (one strategy by name, as the backtest loads it)', () => {
  /** A temp folder of modules; `poison` modules throw when evaluated, so loading one fails the test. */
  function folder(files: Record<string, string>): string {
    const dir = mkdtempSync(path.join(tmpdir(), 'tb-find-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    return dir;
  }
  const strategy = (name: string, extra = ''): string =>
    `const { z } = require('zod');\n${extra}\nmodule.exports = { name: ${name}, markets: ['BTC_USDT'], interval: '1h', warmup: 0, params: z.object({ n: z.number().default(1) }), onCandle: () => [] };\n`;
  /** Records that it was evaluated (each test checks none was) and is not a strategy. */
  const poison = 'globalThis.__tbEvaluated = [...(globalThis.__tbEvaluated ?? []), __filename];\n';
  const evaluated = (): string[] => (globalThis as { __tbEvaluated?: string[] }).__tbEvaluated ?? [];
  afterEach(() => {
    delete (globalThis as { __tbEvaluated?: string[] }).__tbEvaluated;
  });

  test('evaluates only the module named after the strategy, with its local imports, and hashes their sources', () => {
    const dir = folder({
      'alpha.ts': `import { k } from './_k';\n${strategy("'alpha'")}\nexport const x = k;`,
      '_k.ts': 'export const k = 1;\n',
      'beta.ts': poison,
      'gamma.js': `${poison}// mentions nothing`,
    });
    const found = findStrategy(dir, 'alpha', { params: { n: 4 } });
    expect(found.strategy.name).toBe('alpha');
    expect(found.strategy.params).toEqual({ n: 4 });
    expect(found.sources.map((s) => path.basename(s.file))).toEqual(['alpha.ts', '_k.ts']);
    expect(found.sources[0]!.sha256).toBe(createHash('sha256').update(readFileSync(path.join(dir, 'alpha.ts'), 'utf8')).digest('hex'));
    expect(evaluated()).toEqual([]);
  });

  test('a strategy in a file of another name is found through its quoted name; unrelated modules stay untouched', () => {
    const dir = folder({ 'a-file.ts': strategy('"renamed"'), 'other.ts': poison });
    expect(findStrategy(dir, 'renamed').strategy.file).toBe(path.join(dir, 'a-file.ts'));
    expect(evaluated()).toEqual([]);
  });

  test('a name built at run time is still found by loading the rest; a typo lists the names found', () => {
    const dir = folder({ 'x.ts': strategy("['dyn', 'amic'].join('')"), 'y.ts': strategy("'plain'") });
    expect(findStrategy(dir, 'dynamic').strategy.file).toBe(path.join(dir, 'x.ts'));
    expect(() => findStrategy(dir, 'plian')).toThrow(/no strategy named "plian" .*\(found: dynamic, plain\)/);
  });

  test('a second module declaring the same name is refused, as the daemon refuses it', () => {
    const dir = folder({ 'dup.ts': strategy("'dup'"), 'copy.ts': strategy("'dup'") });
    expect(() => findStrategy(dir, 'dup')).toThrow(/strategy name "dup" is already used/);
  });

  test("the module's own load, validation and parameter errors come through with the file", () => {
    const dir = folder({ 'broken.ts': "// 'broken'\nexport default {{", 'bad.ts': strategy("'bad'") });
    expect(() => findStrategy(dir, 'bad', { params: { n: 'x' } })).toThrow(/strategy bad: parameter n/);
    expect(() => findStrategy(dir, 'broken')).toThrow(/broken\.ts: failed to load: line 2/);
  });

  test('the daemon still loads (and reports) every module of the folder', () => {
    const dir = folder({ 'ok.ts': strategy("'ok'"), 'bad.ts': poison });
    const r = loadStrategies(dir);
    expect(r.strategies.map((s) => s.name)).toEqual(['ok']);
    expect(r.errors.map((e) => e.context['reason'])).toEqual(['invalid']);
    expect(evaluated()).toEqual([path.join(dir, 'bad.ts')]);
  });

  test('finds the example strategies', () => {
    for (const name of ['sma-cross', 'rsi-reversion', 'donchian-breakout']) {
      const found = findStrategy(STRATEGIES, name);
      expect(found.strategy.name).toBe(name);
      expect(found.sources.map((s) => path.basename(s.file))).toEqual([`${name}.ts`, '_sizing.ts']);
    }
  });
});
