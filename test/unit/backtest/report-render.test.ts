import type { Candle } from '../../../src/domain/candle';
import { Decimal } from '../../../src/domain/decimal';
import { downsampleM4 } from '../../../src/backtest/report/downsample';
import { buildEquityCurve } from '../../../src/backtest/report/equity-curve';
import { escapeHtml } from '../../../src/backtest/report/html-escape';
import { MAX_TRADE_ROWS, renderHtml } from '../../../src/backtest/report/html-report';
import { toReportJson } from '../../../src/backtest/report/json-report';
import { analyseBacktest } from '../../../src/backtest/report/metrics';
import type { BacktestFill, BacktestRun } from '../../../src/backtest/report/types';
import { smallCandles, smallFills, smallStartBalances } from '../../fixtures/backtest/small-run';

function smallRun(overrides: Partial<BacktestRun> = {}): BacktestRun {
  const candles = { BTC_USDT: smallCandles };
  return {
    fills: smallFills, candles, startBalances: smallStartBalances, quoteCurrency: 'USDT', interval: '1h',
    equity: buildEquityCurve(smallFills, candles, smallStartBalances, 'USDT', '1h'), ...overrides,
  };
}

describe('downsampleM4', () => {
  test('keeps at most 4 points per bucket, including the extremes, in time order', () => {
    const n = 120_000;
    const times = Array.from({ length: n }, (_, i) => i * 60);
    const values = times.map((_, i) => Math.sin(i / 500) * 100 + (i === 77_777 ? 1000 : 0));
    const out = downsampleM4(times, values, 0, times[n - 1] as number, 900, 90);
    expect(out.length).toBeLessThanOrEqual(4 * 900);
    expect(out.length).toBeGreaterThan(900);
    expect(out.some((p) => p.v === values[77_777])).toBe(true); // a one-candle spike survives
    expect(out[0]).toEqual({ t: 0, v: 0, gapBefore: true });
    expect(out[out.length - 1]?.t).toBe(times[n - 1]);
    expect(out.every((p, i) => i === 0 || p.t > (out[i - 1] as { t: number }).t)).toBe(true);
    expect(out.filter((p) => p.gapBefore)).toHaveLength(1);
  });

  test('a time gap larger than maxStep starts a new segment', () => {
    const out = downsampleM4([0, 60, 120, 7320, 7380], [1, 2, 3, 4, 5], 0, 7380, 1000, 90);
    expect(out.map((p) => p.gapBefore)).toEqual([true, false, false, true, false]);
  });
});

describe('renderHtml', () => {
  test('self-contained: no script, no external URL, inline CSS and SVG', () => {
    const html = renderHtml(analyseBacktest(smallRun()));
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(html).toContain('<svg id="equity-chart"');
    expect(html).toContain('data-market="BTC_USDT"');
    // Fill markers carry data-side; the legend's sample triangles do not.
    expect(html.match(/<path class="marker [^"]*" data-side=/g)).toHaveLength(smallFills.length);
  });

  test('escapes every input string', () => {
    const fills: BacktestFill[] = smallFills.map((f, i) => (i === 0 ? { ...f, clientOrderId: `<b onmouseover='x'>&"` } : f));
    const html = renderHtml(analyseBacktest(smallRun({ fills, title: '</title><script>alert(1)</script>' })));
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b onmouseover');
    expect(html).toContain('&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;b onmouseover=&#39;x&#39;&gt;&amp;&quot;');
    expect(escapeHtml(`<>&"'`)).toBe('&lt;&gt;&amp;&quot;&#39;');
  });

  test('caps the trades table with a note when there are very many trades', () => {
    // 2 fills per candle (buy then sell) over 1,200 one-minute candles: 1,200 round trips.
    const t0 = 1_632_808_740;
    const candles: Candle[] = Array.from({ length: 1200 }, (_, i) => {
      const p = new Decimal(100 + (i % 7));
      return { time: t0 + i * 60, open: p, high: p.plus(1), low: p.minus(1), close: p, volume: new Decimal(1), volumeMoney: p };
    });
    const fills: BacktestFill[] = candles.flatMap((c, i) => (['buy', 'sell'] as const).map((side, k) => ({
      time: c.time + 10 + k * 20, market: 'BTC_USDT', side, amount: new Decimal('0.5'), price: c.open.plus(k),
      fee: new Decimal('0.05'), clientOrderId: `c${i}-${side}`, role: 'taker' as const,
    })));
    const byMarket = { BTC_USDT: candles };
    const start = { USDT: new Decimal(1000) };
    const result = analyseBacktest({
      fills, candles: byMarket, startBalances: start, quoteCurrency: 'USDT', interval: '1m',
      equity: buildEquityCurve(fills, byMarket, start, 'USDT', '1m'),
    });
    expect(result.trades).toHaveLength(1200);
    const html = renderHtml(result);
    expect(html).toContain(`Showing the first ${MAX_TRADE_ROWS} of 1200 trades`);
    expect(html).toContain(`data-rows="${MAX_TRADE_ROWS}" data-total="1200"`);
    expect(result.metrics.realizedPnl.toString()).toBe('480'); // 1200 × (0.5 × 1 − 2 × 0.05)
  });
});

describe('toReportJson', () => {
  test('decimals are strings, Infinity is a string, null stays null', () => {
    // Only the winning first trade: profit factor Infinity.
    const fills = smallFills.slice(0, 2);
    const json = toReportJson(analyseBacktest(smallRun({ fills, equity: buildEquityCurve(fills, { BTC_USDT: smallCandles }, smallStartBalances, 'USDT', '1h') })));
    const metrics = json['metrics'] as Record<string, unknown>;
    expect(metrics['profitFactor']).toBe('Infinity');
    expect(metrics['netPnl']).toBe('7.592');
    expect(metrics['totalFees']).toBe('0.408');
    expect(metrics['winRate']).toBe(1);
    expect(typeof metrics['sortino']).toBe('number');
    expect(json['formatVersion']).toBe(3);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);

    const none = toReportJson(analyseBacktest(smallRun({ fills: [], equity: buildEquityCurve([], { BTC_USDT: smallCandles }, smallStartBalances, 'USDT', '1h') })));
    const m = none['metrics'] as Record<string, unknown>;
    expect([m['winRate'], m['profitFactor'], m['sharpe'], m['bestTrade']]).toEqual([null, null, null, null]);
  });
});
