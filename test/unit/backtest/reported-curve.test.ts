import { Decimal } from '../../../src/domain/decimal';
import { buildEquityCurve, buildEquitySeries } from '../../../src/backtest/report/equity-curve';
import { analyseBacktest, drawdownExtremes } from '../../../src/backtest/report/metrics';
import { reportedCurve } from '../../../src/backtest/report/reported-curve';
import { toReportJson } from '../../../src/backtest/report/json-report';
import { loadRealCandles, rhythmFills } from '../../fixtures/backtest/real-run';

/** Report format 3: report.json keeps some points of the curve; every metric still comes from all of them. */
describe('the reported curve (strategy interval, fills, drawdown extremes)', () => {
  test('keeps the hourly points, every fill\'s point and both drawdown extremes, each exact; the metrics are those of the full curve', async () => {
    const candles = await loadRealCandles();
    const fills = rhythmFills(candles);
    const start = { USDT: new Decimal(10_000) };
    const full = buildEquityCurve(fills, candles, start, 'USDT', '1m');
    const curve = buildEquitySeries(fills, candles, start, 'USDT', '1m');
    const kept = reportedCurve(curve, { interval: '1h', fills });

    // The series and the points are the same curve.
    expect(curve.length).toBe(full.length);
    const byTime = new Map(full.map((p) => [p.time, p.equity.toString()]));
    for (const p of kept) expect(p.equity.toString()).toBe(byTime.get(p.time));

    const times = new Set(kept.map((p) => p.time));
    expect(times.has(full[0]!.time) && times.has(full[full.length - 1]!.time)).toBe(true);
    for (const p of full) if (p.time % 3600 === 0) expect(times.has(p.time)).toBe(true);
    for (const f of fills) {
      const landing = full.find((p, k) => k > 0 && p.time > f.time) ?? full[full.length - 1]!;
      expect(times.has(landing.time)).toBe(true);
    }
    const dd = drawdownExtremes(full.map((p) => p.value!));
    for (const k of [dd.from, dd.to, dd.pctFrom, dd.pctTo]) expect(times.has(full[k]!.time)).toBe(true);
    // Far fewer points than the full curve (two days of 1m: ~2,900 points; a fill every 20 minutes here).
    expect(kept.length).toBeLessThan(full.length / 5);

    const run = { fills, candles, startBalances: start, quoteCurrency: 'USDT', interval: '1m' as const };
    const sampled = analyseBacktest({ ...run, equity: kept, curve, curveInterval: '1h' });
    const whole = analyseBacktest({ ...run, equity: full });
    expect(sampled.metrics).toEqual(whole.metrics);
    expect(sampled.benchmark.returnPct).toBe(whole.benchmark.returnPct);
    expect(sampled.benchmark.maxDrawdownPct).toBe(whole.benchmark.maxDrawdownPct);
    // The benchmark line has the written curve's points.
    expect(sampled.benchmark.equity).toHaveLength(kept.length);

    const json = toReportJson(sampled);
    expect(json['formatVersion']).toBe(3);
    expect(json['equityCurve']).toEqual({ resolution: '1h', full: false, points: kept.length, fullResolutionPoints: full.length });
    expect((json['equity'] as unknown[]).length).toBe(kept.length);
    // --full-curve: every point, as format 2 wrote them.
    const all = reportedCurve(curve, { interval: '1h', fills, full: true });
    expect(all.map((p) => `${p.time} ${p.equity.toString()}`)).toEqual(full.map((p) => `${p.time} ${p.equity.toString()}`));
  });
});
