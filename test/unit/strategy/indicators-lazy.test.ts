import * as technicalindicators from 'technicalindicators';
import { indicators } from '../../../src/strategy/indicators';

test('ctx.indicators reads as technicalindicators plus incremental, and refuses writes', () => {
  expect(indicators.SMA.calculate({ period: 2, values: [1, 2, 3] })).toEqual([1.5, 2.5]);
  expect('RSI' in indicators).toBe(true);
  expect('incremental' in indicators).toBe(true);
  expect(Object.keys(indicators).sort()).toEqual(['incremental', ...Object.keys(technicalindicators)].sort());
  const spread = { ...indicators };
  expect(spread.EMA).toBe(technicalindicators.EMA);
  expect(spread.incremental.sma(3).nextValue(1)).toBeUndefined();
  expect(() => { (indicators as unknown as Record<string, unknown>)['SMA'] = 1; }).toThrow(TypeError);
  expect(() => { delete (indicators as unknown as Record<string, unknown>)['incremental']; }).toThrow(TypeError);
  expect(indicators.SMA).toBe(technicalindicators.SMA);
});
