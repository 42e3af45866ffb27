import { Decimal } from '../../../src/domain/decimal';
import { BacktestInputError } from '../../../src/domain/errors';
import { buildEquityCurve } from '../../../src/backtest/report/equity-curve';
import { analyseBacktest, buildRoundTrips, computeMetrics, exposure, maxDrawdown, profitFactor } from '../../../src/backtest/report/metrics';
import type { BacktestFill, BacktestRun } from '../../../src/backtest/report/types';
import { HOUR, T0, smallCandles, smallFills, smallStartBalances } from '../../fixtures/backtest/small-run';

/*
 * HAND COMPUTATION for test/fixtures/backtest/small-run.ts (fee = 0.1 % of notional, quote USDT).
 *
 * Candle k opens at T0 + k h; closes: 100 102 104 101 99 100 103 105 104 106 (first open 100).
 * Fills (all at candle open + 60 s):
 *   c1 buy 2 @100 fee .2 | c3 sell 2 @104 fee .208 | c4 buy 1 @101 fee .101 | c5 buy 1 @99 fee .099
 *   c6 sell 2 @100 fee .2 | c8 sell 1 @105 fee .105 | c9 buy 2 @104 fee .208 (flip)
 *
 * Trades: position round trips (flat to flat) with the portfolio's PnL (average cost, every fee realised
 * when paid; a flipping fill's fee shared pro rata by amount between the trip it closes and the one it opens):
 *   #1 long  2: entry 2@100, exit 2@104: gross (104-100)*2 = 8, fees .2+.208 = .408                   net  7.592
 *   #2 long  2: entries 1@101 and 1@99 (average 100), exit 2@100: gross 0, fees .101+.099+.2 = .4     net -0.4
 *   #3 short 1: entry 105, exit 104 (1 of the 2 bought at c9): gross 1,
 *      c9 fee split pro rata: .208 * 1/2 = .104 closes, .104 opens the next long;
 *      fees .105 + .104 = .209                                                                        net  0.791
 *   open: long 1 @104, its fee so far .104 (realised: -.104), marked at the last close 106.
 * Total fees = .2+.208+.101+.099+.2+.105+.208 = 1.121
 * Realized = 7.592 - 0.4 + 0.791 = 7.983; average trade 7.983/3 = 2.661; best 7.592; worst -0.4
 * Wins 2 (#1, #3), losses 1 (#2): win rate 2/3. Gross profit 8.383, gross loss 0.4,
 * profit factor 8.383 / 0.4 = 20.9575
 * SQN: pnls 7.592 -0.4 .791, mean 2.661, squared deviations 24.314761 + 9.369721 + 3.4969 = 37.181382,
 *   sample variance /2 = 18.590691, sd 4.3116924, SQN = sqrt(3) * 2.661 / 4.3116924 = 1.0689508...
 * Average time in a trade: (7200 + 7200 + 3600) / 3 = 6000 s.
 * CAGR over 10 h: (1009.879 / 1000)^(365*24/10) - 1; Calmar = CAGR % / max drawdown %.
 * Buy and hold (no fee without run settings): 1000 / 100 (first open) = 10 BTC, worth 10 * 106 = 1060
 *   at the end: +6 %; its worst fall is from the close 104 to 99: 5/104 = 4.8076923 %.
 *
 * Equity (quote + BTC * close), point 0 at T0 valued at the first open:
 *   E0 1000 | c0 1000 | c1 799.8+2*102 = 1003.8 | c2 799.8+2*104 = 1007.8 | c3 1007.592
 *   c4 906.491+99 = 1005.491 | c5 807.392+200 = 1007.392 | c6 1007.192 | c7 1007.192
 *   c8 1112.087-104 = 1008.087 | c9 903.879+106 = 1009.879
 * Net PnL = 9.879 (= realized 7.983 + open (106-104)*1 - .104 = 1.896); return 0.9879 %.
 * Max drawdown: peak 1007.8 (c2) to 1005.491 (c4) = 2.309 = 0.2291129192 % of the peak.
 *
 * Returns r_i = E_i/E_{i-1} - 1 (10 of them):
 *   0, .0038, 4/1003.8 = .0039848575, -.208/1007.8 = -.0002063902, -2.101/1007.592 = -.0020851694,
 *   1.901/1005.491 = .0018906186, -.2/1007.392 = -.0001985324, 0, .895/1007.192 = .0008886091,
 *   1.792/1008.087 = .0017776244
 *   mean = .0098516176 / 10 = .00098516176
 *   sample variance (n-1 = 9) = 3.6186233e-6, stdev = .00190226792
 *   Sharpe = mean/stdev * sqrt(8760 hourly periods per year) = .51788802 * 93.5949 = 48.4716625
 *   downside deviation = sqrt((.0002063902^2 + .0020851694^2 + .0001985324^2) / 10)
 *                      = sqrt(4.4299434e-6 / 10) = .00066557820
 *   Sortino = .00098516176 / .00066557820 * 93.5949 = 138.535319
 * Exposure: run T0 .. T0+10h = 36000 s; in position [c1+60, c3+60] 7200 s, [c4+60, c6+60] 7200 s
 *   [c8+60, c9+60] 3600 s, open [c9+60, T0+10h] 3540 s: 21540 / 36000 = 0.598333...
 */

const d = (s: string): Decimal => new Decimal(s);
const run: BacktestRun = {
  fills: smallFills,
  candles: { BTC_USDT: smallCandles },
  startBalances: smallStartBalances,
  quoteCurrency: 'USDT',
  interval: '1h',
  equity: buildEquityCurve(smallFills, { BTC_USDT: smallCandles }, smallStartBalances, 'USDT', '1h'),
};

describe('backtest report metrics (hand-computed fixture)', () => {
  const result = analyseBacktest(run);
  const m = result.metrics;

  test('equity curve: start point plus one point per candle close', () => {
    expect(run.equity.map((p) => p.time)).toEqual([T0, ...smallCandles.map((c) => c.time + HOUR)]);
    expect(run.equity.map((p) => p.equity.toString())).toEqual([
      '1000', '1000', '1003.8', '1007.8', '1007.592', '1005.491', '1007.392', '1007.192', '1007.192', '1008.087', '1009.879',
    ]);
  });

  test('one trade per position round trip, PnL from the portfolio (average cost); the flip splits its fee pro rata', () => {
    expect(result.trades.map((t) => [t.id, t.direction, t.amount.toString(), t.entryPrice.toString(), t.exitPrice.toString(),
      t.grossPnl.toString(), t.fees.toString(), t.netPnl.toString(), t.fillCount])).toEqual([
      [1, 'long', '2', '100', '104', '8', '0.408', '7.592', 2],
      [2, 'long', '2', '100', '100', '0', '0.4', '-0.4', 3],
      [3, 'short', '1', '105', '104', '1', '0.209', '0.791', 2],
    ]);
    expect(result.trades.map((t) => [t.entryTime - T0, t.exitTime - T0, t.durationSeconds])).toEqual([
      [3660, 10860, 7200], [14460, 21660, 7200], [28860, 32460, 3600],
    ]);
    // The fixture's fills carry no order kind: the reasons fall back to the side.
    expect(result.trades.map((t) => `${t.entryReason}>${t.exitReason}`)).toEqual(['buy>sell', 'buy>sell', 'sell>buy']);
    expect(result.trades[0]?.returnRatio).toBeCloseTo(7.592 / 200, 12);
    expect(result.fillActions).toEqual(['entry', 'exit', 'entry', 'entry', 'exit', 'entry', 'flip']);
    expect(result.openPositions).toHaveLength(1);
    const open = result.openPositions[0];
    expect([open?.direction, open?.amount.toString(), open?.entryPrice.toString(), open?.fees.toString(), open?.realizedPnl.toString(), open?.entryTime]).toEqual([
      'long', '1', '104', '0.104', '-0.104', T0 + 9 * HOUR + 60,
    ]);
  });

  test('money metrics are exact decimals', () => {
    expect(m.startEquity.toString()).toBe('1000');
    expect(m.endEquity.toString()).toBe('1009.879');
    expect(m.netPnl.toString()).toBe('9.879');
    expect(m.realizedPnl.toString()).toBe('7.983');
    expect(m.totalFees.toString()).toBe('1.121');
    expect(m.maxDrawdown.toString()).toBe('2.309');
    expect(m.grossProfit.toString()).toBe('8.383');
    expect(m.grossLoss.toString()).toBe('0.4');
    expect(m.averageTrade?.toString()).toBe('2.661');
    expect(m.bestTrade?.toString()).toBe('7.592');
    expect(m.worstTrade?.toString()).toBe('-0.4');
  });

  test('ratios', () => {
    expect(m.returnPct).toBeCloseTo(0.9879, 12);
    expect(m.maxDrawdownPct).toBeCloseTo(0.2291129192, 9);
    expect([m.tradeCount, m.winCount, m.lossCount]).toEqual([3, 2, 1]);
    expect(m.winRate).toBeCloseTo(2 / 3, 12);
    expect(m.profitFactor).toBeCloseTo(8.383 / 0.4, 10);
    expect(m.sqn).toBeCloseTo(1.0689508, 6);
    expect(m.averageTradeSeconds).toBe(6000);
    const cagr = (Math.pow(1.009879, (365 * 24) / 10) - 1) * 100;
    expect(m.cagrPct).toBeCloseTo(cagr, 6);
    expect(m.calmar).toBeCloseTo(cagr / 0.2291129192, 3);
    expect(m.benchmarkReturnPct).toBeCloseTo(6, 12);
    expect(m.benchmarkMaxDrawdownPct).toBeCloseTo(500 / 104, 9);
    expect(result.benchmark.endEquity?.toString()).toBe('1060');
    expect(result.benchmark.equity).toEqual([1000, 1000, 1020, 1040, 1010, 990, 1000, 1030, 1050, 1040, 1060]);
    expect(m.sharpe).toBeCloseTo(48.4716625, 5);
    expect(m.sortino).toBeCloseTo(138.535319, 4);
    expect(m.exposure).toBeCloseTo(21540 / 36000, 12);
    expect([m.startTime, m.endTime, m.candleCount]).toEqual([T0, T0 + 10 * HOUR, 10]);
  });
});

describe('metric edge cases', () => {
  test('profit factor: Infinity with no loss, null with neither profit nor loss', () => {
    expect(profitFactor(d('5'), d('0'))).toBe(Infinity);
    expect(profitFactor(d('0'), d('0'))).toBeNull();
    expect(profitFactor(d('0'), d('2'))).toBe(0);
  });

  test('no fills: flat curve, no trades, undefined ratios are null', () => {
    const equity = buildEquityCurve([], { BTC_USDT: smallCandles }, smallStartBalances, 'USDT', '1h');
    const m = computeMetrics({ ...run, fills: [], equity });
    expect(m.netPnl.toString()).toBe('0');
    expect([m.tradeCount, m.winRate, m.profitFactor, m.averageTrade, m.bestTrade, m.sharpe, m.sortino]).toEqual([0, null, null, null, null, null, null]);
    expect([m.exposure, m.maxDrawdownPct, m.maxDrawdown.toString()]).toEqual([0, 0, '0']);
  });

  test('max drawdown amount and percent may come from different peaks', () => {
    const pts = ['100', '50', '1000', '800'].map((e, i) => ({ time: i, equity: d(e) }));
    const dd = maxDrawdown(pts);
    expect(dd.amount.toString()).toBe('200');
    expect(dd.pct).toBeCloseTo(50, 12);
  });

  test('exposure merges overlapping positions in two markets', () => {
    const t = (a: number, b: number) => ({ entryTime: a, exitTime: b }) as never;
    expect(exposure([t(10, 30), t(20, 40)], [], 0, 100)).toBeCloseTo(0.3, 12);
  });

  test('a partial exit leaves the round trip open at the average entry; the trade is complete once flat', () => {
    const f = (side: 'buy' | 'sell', amount: string, price: string, time: number): BacktestFill => ({
      time, market: 'ETH_USDT', side, amount: d(amount), price: d(price), fee: d('0'), clientOrderId: `x${time}`, role: 'maker',
    });
    const fills = [f('buy', '1', '10', 1), f('buy', '1', '20', 2), f('sell', '1', '15', 3)];
    const partly = buildRoundTrips(fills);
    expect(partly.trades).toEqual([]);
    expect(partly.openPositions.map((p) => [p.entryPrice.toString(), p.amount.toString(), p.realizedPnl.toString()])).toEqual([['15', '1', '0']]);
    expect(partly.fillActions).toEqual(['entry', 'entry', 'exit']);
    const flat = buildRoundTrips([...fills, f('sell', '1', '25', 4)]);
    expect(flat.trades.map((t) => [t.amount.toString(), t.entryPrice.toString(), t.exitPrice.toString(), t.netPnl.toString(), t.fillCount])).toEqual([['2', '15', '20', '10', 4]]);
    expect(flat.openPositions).toEqual([]);
  });

  test('many exits make one trade (not one per exit); a position still open at the end is an open position', () => {
    const f = (side: 'buy' | 'sell', amount: string, price: string, time: number, fee = '0'): BacktestFill => ({
      time, market: 'ETH_USDT', side, amount: d(amount), price: d(price), fee: d(fee), clientOrderId: `x${time}`, role: 'taker',
      orderKind: side === 'buy' ? 'stop_limit' : time % 2 === 0 ? 'oco_take_profit' : 'oco_stop_loss',
    });
    const rt = buildRoundTrips([
      f('buy', '3', '10', 1, '0.03'), f('sell', '1', '12', 2, '0.012'), f('sell', '1', '9', 3, '0.009'), f('sell', '1', '11', 4, '0.011'),
      f('buy', '2', '10', 5, '0.02'), f('sell', '1', '12', 6, '0.012'),
    ]);
    expect(rt.trades).toHaveLength(1);
    const t = rt.trades[0]!;
    expect([t.amount.toString(), t.exitPrice.toString(), t.grossPnl.toString(), t.fees.toString(), t.netPnl.toString(), t.fillCount, t.durationSeconds])
      .toEqual(['3', '10.66666666666666666666666666666666666667', '2', '0.062', '1.938', 4, 3]);
    expect([t.entryReason, t.exitReason]).toEqual(['stop-limit buy', 'OCO take-profit sell + OCO stop-loss sell']);
    const open = rt.openPositions[0]!;
    // The second round trip is still open (1 of 2 left): its fees so far .02 + .012, realised (12 - 10) - .032 (the portfolio realises fees when paid).
    expect([open.amount.toString(), open.fees.toString(), open.realizedPnl.toString(), open.entryReason]).toEqual(['1', '0.032', '1.968', 'stop-limit buy']);
  });

  test('fills are sorted by time before matching', () => {
    const rt = buildRoundTrips([...smallFills].reverse());
    expect(rt.fills.map((f) => f.clientOrderId)).toEqual(smallFills.map((f) => f.clientOrderId));
  });

  test('start balances in a base currency are valued at open, then close', () => {
    const equity = buildEquityCurve([], { BTC_USDT: smallCandles }, { USDT: d('0'), BTC: d('2') }, 'USDT', '1h');
    expect(equity.map((p) => p.equity.toString()).slice(0, 3)).toEqual(['200', '200', '204']);
  });

  test('inconsistent input throws BacktestInputError', () => {
    const fill = { ...(smallFills[0] as BacktestFill) };
    expect(() => buildEquityCurve([{ ...fill, market: 'ETH_USDT' }], { BTC_USDT: smallCandles }, {}, 'USDT', '1h')).toThrow(BacktestInputError);
    expect(() => buildEquityCurve([{ ...fill, time: T0 + 11 * HOUR }], { BTC_USDT: smallCandles }, {}, 'USDT', '1h')).toThrow(/outside the candles/);
    expect(() => buildEquityCurve([], { BTC_USDT: smallCandles }, { ETH: d('1') }, 'USDT', '1h')).toThrow(/ETH_USDT/);
    expect(() => buildEquityCurve([], { BTC_EUR: smallCandles }, {}, 'USDT', '1h')).toThrow(/not quoted in USDT/);
    expect(() => buildRoundTrips([{ ...fill, amount: d('0') }])).toThrow(/amount: must be > 0/);
    expect(() => computeMetrics({ ...run, equity: [] })).toThrow(BacktestInputError);
  });
});
