import { prepareStrategy } from '../../../src/strategy/prepare-strategy';
import { defineStrategy, z } from '../../../src/strategy/strategy';

function withParams(params: z.ZodType) {
  return defineStrategy({ name: 'p', markets: ['BTC_USDT'], interval: '1m', warmup: 0, params: params as z.ZodType<Record<string, unknown>>, onCandle: () => [] });
}

test('a parameter without a default, not given by the config, says every parameter needs a default (not "received undefined")', () => {
  const def = withParams(z.object({ fast: z.number().default(5), slow: z.number() }));
  expect(() => prepareStrategy(def)).toThrow('strategy p: parameter slow has no default: every parameter needs a default (or a value in strategies.enabled[].params, or backtest --params)');
  // Given a value, it runs with it.
  expect(prepareStrategy(def, { config: { params: { slow: 30 } } }).params).toEqual({ fast: 5, slow: 30 });
});

test('the same for an enum and a nested parameter; a wrong value keeps zod\'s own message', () => {
  expect(() => prepareStrategy(withParams(z.object({ side: z.enum(['buy', 'sell']) })))).toThrow('parameter side has no default');
  expect(() => prepareStrategy(withParams(z.object({ risk: z.object({ max: z.number() }) })), { config: { params: { risk: {} } } })).toThrow('parameter risk.max has no default');
  const typed = () => prepareStrategy(withParams(z.object({ slow: z.number() })), { config: { params: { slow: 'thirty' } } });
  expect(typed).toThrow('parameter slow: Invalid input: expected number, received string');
  expect(typed).not.toThrow('has no default');
});

test('a refinement pointing at a defaulted parameter is not reported as a missing default', () => {
  const def = withParams(z.object({ fast: z.number().default(50), slow: z.number().default(20) }).refine((p) => p.fast < p.slow, { message: 'fast must be below slow', path: ['fast'] }));
  expect(() => prepareStrategy(def)).toThrow('parameter fast: fast must be below slow');
});
