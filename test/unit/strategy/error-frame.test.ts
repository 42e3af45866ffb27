import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { strategyFrame } from '../../../src/strategy/error-frame';
import { ModuleEvaluator } from '../../../src/strategy/module-evaluator';

const DIR = path.resolve('/srv/strategies');

describe('strategyFrame', () => {
  test('the first frame inside the strategy directory, relative, with line and column', () => {
    const stack = [
      'Error: oops',
      `    at check (${DIR}/oops.ts:11:11)`,
      `    at Object.onCandle (${DIR}/oops.ts:18:5)`,
      '    at StrategyHost.run (/opt/tradebot/dist/src/strategy/strategy-host.js:310:40)',
    ].join('\n');
    expect(strategyFrame(stack, DIR)).toBe('oops.ts:11:11');
  });

  test('daemon and node frames above it are skipped; anonymous frames and file:// URLs count', () => {
    const stack = [
      'TypeError: x is not a function',
      '    at Decimal.times (/opt/tradebot/node_modules/decimal.js/decimal.js:1:2)',
      '    at node:internal/process/task_queues:95:5',
      `    at file://${DIR}/lib/_helper.ts:4:9`,
    ].join('\n');
    expect(strategyFrame(stack, DIR)).toBe('lib/_helper.ts:4:9');
  });

  test('a directory that only shares a prefix is not the strategy directory', () => {
    expect(strategyFrame(`Error: x\n    at f (${DIR}-old/oops.ts:1:1)`, DIR)).toBeUndefined();
  });

  test('no frame in the directory, no stack, or not a string: undefined', () => {
    expect(strategyFrame('Error: x\n    at f (/opt/tradebot/dist/src/x.js:1:1)', DIR)).toBeUndefined();
    expect(strategyFrame(undefined, DIR)).toBeUndefined();
    expect(strategyFrame(42, DIR)).toBeUndefined();
    expect(strategyFrame('just a message', DIR)).toBeUndefined();
  });

  test('a path with spaces and parentheses in a function name', () => {
    const dir = path.resolve('/srv/my strategies');
    expect(strategyFrame(`Error: x\n    at Object.<anonymous> (${dir}/a b.ts:3:7)`, dir)).toBe('a b.ts:3:7');
  });
});

describe('a strategy module evaluated by the loader', () => {
  test("the frame names the file's own line and column (the evaluator adds no header lines)", () => {
    const dir = path.resolve(__dirname, '../../fixtures/failing');
    const file = path.join(dir, 'oops.ts');
    const strategy = (new ModuleEvaluator().load(file) as { default: { onCandle(ctx: unknown): unknown } }).default;
    let thrown: unknown;
    try {
      strategy.onCandle({ candle: { time: 1631917440, close: { toString: () => '100' } } }); // a candle it fails on
    } catch (err) {
      thrown = err;
    }
    const lines = readFileSync(file, 'utf8').split('\n');
    const i = lines.findIndex((l) => l.includes('throw new Error'));
    expect((thrown as Error).message).toBe('oops: cannot trade at 100');
    expect(strategyFrame((thrown as Error).stack, dir)).toBe(`oops.ts:${i + 1}:${(lines[i] as string).indexOf('new Error') + 1}`);
  });
});
