/**
 * The backtest report's public API. The backtester calls, in order:
 *   const equity = buildEquityCurve(fills, candles, startBalances, quoteCurrency, interval);
 *   const result = analyseBacktest({ fills, candles, startBalances, quoteCurrency, interval, equity, title });
 *   await writeReport(outDir, result); // report.json + report.html
 */
export type * from './types';
export { buildEquityCurve } from './equity-curve';
export { analyseBacktest, buildRoundTrips, computeMetrics, METRIC_NAMES, type RoundTrips } from './metrics';
export { renderJson, toReportJson, REPORT_FORMAT_VERSION } from './json-report';
export { renderHtml, MAX_TRADE_ROWS } from './html-report';
export { writeReport, type WrittenReport } from './write-report';
