import { Decimal } from '../../../../src/domain/decimal';
import { bestAfter, decideTrail, initialStop, limitPriceOf, triggerFor, type TrailSpec } from '../../../../src/execution/trailing/trailing-decision';

const d = (v: string): Decimal => new Decimal(v);
const same = (t: Decimal): Decimal => t;
const sell: TrailSpec = { side: 'sell', trail: d('100'), step: d('10'), limitOffset: d('5') };
const buy: TrailSpec = { side: 'buy', trail: d('100'), step: d('10'), limitOffset: d('5') };
const candle = (high: string, low: string) => ({ high: d(high), low: d(low) });

test('a sell stop starts trail below the close, its limit offset below the trigger; a buy stop above', () => {
  expect(initialStop(sell, d('1000'), same)).toEqual({ trigger: d('900'), price: d('895') });
  expect(initialStop(buy, d('1000'), same)).toEqual({ trigger: d('1100'), price: d('1105') });
  expect(limitPriceOf({ side: 'sell', limitOffset: d('0') }, d('900'))).toEqual(d('900'));
});

test('no stop where the trail or the limit would leave the positive prices', () => {
  expect(initialStop(sell, d('100'), same)).toBeUndefined();
  expect(triggerFor({ ...sell, limitOffset: d('1') }, d('100.5'), same)).toBeUndefined();
});

test('the best price follows the highs (sell) or the lows (buy), never back', () => {
  expect(bestAfter('sell', d('1000'), candle('1010', '990'))).toEqual(d('1010'));
  expect(bestAfter('sell', d('1000'), candle('999', '900'))).toEqual(d('1000'));
  expect(bestAfter('buy', d('1000'), candle('1010', '990'))).toEqual(d('990'));
  expect(bestAfter('buy', d('1000'), candle('1100', '1001'))).toEqual(d('1000'));
});

test('a sell stop moves only when its trigger rises by at least the step', () => {
  const state = { best: d('1000'), trigger: d('900') };
  expect(decideTrail(sell, state, candle('1009.99', '995'), same)).toEqual({ best: d('1009.99') });
  expect(decideTrail(sell, state, candle('1010', '995'), same)).toEqual({ best: d('1010'), move: { trigger: d('910'), price: d('905') } });
  // A fall never moves it down.
  expect(decideTrail(sell, state, candle('990', '800'), same)).toEqual({ best: d('1000') });
});

test('a buy stop moves only when its trigger falls by at least the step', () => {
  const state = { best: d('1000'), trigger: d('1100') };
  expect(decideTrail(buy, state, candle('1005', '991'), same)).toEqual({ best: d('991') });
  expect(decideTrail(buy, state, candle('1005', '980'), same)).toEqual({ best: d('980'), move: { trigger: d('1080'), price: d('1085') } });
  expect(decideTrail(buy, state, candle('1200', '1001'), same)).toEqual({ best: d('1000') });
});

test('the step is measured on the rounded trigger (as the executor sends it)', () => {
  const floor = (t: Decimal): Decimal => t.toDecimalPlaces(0, Decimal.ROUND_DOWN);
  const state = { best: d('1000'), trigger: d('900') };
  // 1009.6 - 100 = 909.6 -> 909: one short of the step.
  expect(decideTrail(sell, state, candle('1009.6', '999'), floor).move).toBeUndefined();
  expect(decideTrail(sell, state, candle('1010.2', '999'), floor).move).toEqual({ trigger: d('910'), price: d('905') });
});
