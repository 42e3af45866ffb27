import { z } from 'zod';
import { StrategyLoadError } from '../../../src/domain/errors';
import { declaredShape, findUnknownParam } from '../../../src/strategy/param-keys';
import { prepareStrategy } from '../../../src/strategy/prepare-strategy';

const definition = (params: unknown) => ({ name: 's', markets: ['BTC_USDT'], interval: '1m', warmup: 0, params, onCandle: () => [] });

describe('strict strategy parameters', () => {
  const schema = z.object({
    fast: z.number().default(10),
    slow: z.number().default(30),
    risk: z.object({ max: z.string().default('1') }).prefault({}),
  }).refine((p) => p.fast < p.slow, { message: 'fast < slow', path: ['fast'] });

  test('an unknown key is refused, naming it and the known ones', () => {
    expect(() => prepareStrategy(definition(schema), { config: { params: { fsat: 5 } } })).toThrow(
      new StrategyLoadError('strategy s: unknown parameter "fsat" (known: fast, slow, risk)', {}),
    );
    try {
      prepareStrategy(definition(schema), { config: { params: { fsat: 5 } } });
    } catch (err) {
      expect((err as StrategyLoadError).context).toMatchObject({ strategy: 's', param: 'fsat', known: ['fast', 'slow', 'risk'] });
    }
  });

  test('nested object parameters are checked too', () => {
    expect(findUnknownParam(schema, { risk: { maxx: '2' } })).toEqual({ path: 'risk.maxx', known: ['max'] });
    expect(() => prepareStrategy(definition(schema), { config: { params: { risk: { maxx: '2' } } } })).toThrow(/unknown parameter "risk.maxx" \(known: max\)/);
  });

  test('known keys pass and keep validating as before', () => {
    expect(prepareStrategy(definition(schema), { config: { params: { fast: 5, risk: { max: '3' } } } }).params).toEqual({ fast: 5, slow: 30, risk: { max: '3' } });
    expect(() => prepareStrategy(definition(schema), { config: { params: { fast: 40 } } })).toThrow(/parameter fast: fast < slow/);
  });

  test('a strategy without parameters says so', () => {
    expect(() => prepareStrategy(definition(z.object({})), { config: { params: { x: 1 } } })).toThrow(/unknown parameter "x" \(it takes no parameters\)/);
  });

  test('keys are read through transform, preprocess, default and intersections', () => {
    const base = z.object({ a: z.number().default(1) });
    expect(Object.keys(declaredShape(base.transform((p) => p))!)).toEqual(['a']);
    expect(Object.keys(declaredShape(z.preprocess((v) => v, base))!)).toEqual(['a']);
    expect(Object.keys(declaredShape(base.default({ a: 2 }))!)).toEqual(['a']);
    expect(Object.keys(declaredShape(base.and(z.object({ b: z.string().default('x') })))!)).toEqual(['a', 'b']);
  });

  test('schemas that accept any key on purpose, or are not objects, are not checked', () => {
    expect(findUnknownParam(z.looseObject({ a: z.number().default(1) }), { other: 1 })).toBeUndefined();
    expect(findUnknownParam(z.record(z.string(), z.number()), { other: 1 })).toBeUndefined();
    expect(findUnknownParam(z.any(), { other: 1 })).toBeUndefined();
  });
});
