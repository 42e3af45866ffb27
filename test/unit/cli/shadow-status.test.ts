import { formatStatus } from '../../../src/cli/strategy-versions-command';
import { ShadowRecord } from '../../../src/strategy/versions/shadow-record';
import type { Intent } from '../../../src/domain/intent';
import { Decimal } from '../../../src/domain/decimal';

const buy = (price: string): Intent => ({
  kind: 'stop_limit', market: 'BTC_USDT', side: 'buy', amount: new Decimal('0.1'), price: new Decimal(price), activationPrice: new Decimal(price),
} as Intent);

/** `tradebot shadow`: the counts line must not read as a contradiction (issue 30: "56 clean in a row, 1 divergent"). */
test('the shadow line says divergent candles and the run without failure apart', () => {
  const r = new ShadowRecord();
  r.record('BTC_USDT', 0, [buy('1')], [], true); // the shadow failed on the first candle
  for (let k = 1; k < 57; k++) r.record('BTC_USDT', k * 60, [buy('1')], [buy(k === 30 ? '2' : '1')], false);
  const lines = formatStatus({ strategy: 's', live: { version: 'v1', markets: ['BTC_USDT'], params: {} }, previous: [], shadow: { version: 'v2', markets: ['BTC_USDT'], params: {}, summary: r.summary() } });
  expect(lines[1]).toBe('  shadow v2 params {}: 57 candles compared, 1 divergent (only live 0, only shadow 0, different 1); '
    + 'the shadow ran without failing on the last 56 in a row (what strategies.shadowCandles counts)');
  expect(lines[1]).not.toContain('clean');
});

test('a shadow that never failed: "on every one"', () => {
  const r = new ShadowRecord();
  r.record('BTC_USDT', 60, [], [], false);
  r.record('BTC_USDT', 120, [], [], false);
  const lines = formatStatus({ strategy: 's', live: { version: 'v1', markets: ['BTC_USDT'], params: {} }, previous: [], shadow: { version: 'v2', markets: ['BTC_USDT'], params: {}, summary: r.summary() } });
  expect(lines[1]).toContain('2 candles compared, 0 divergent');
  expect(lines[1]).toContain('the shadow ran without failing on every one');
});
