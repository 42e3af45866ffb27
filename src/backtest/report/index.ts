/**
 * The backtest report's public API. The backtester calls, in order:
 *   const curve = buildEquitySeries(fills, candles, startBalances, quoteCurrency, interval);
 *   const equity = reportedCurve(curve, { interval: strategyInterval, fills });
 *   const result = analyseBacktest({ fills, candles, startBalances, quoteCurrency, interval, equity, curve, title });
 * (or `equity = buildEquityCurve(...)` and no `curve`: every point written).
 *   await writeReport(outDir, result); // report.json + report.html
 */
export type * from './types';
export { buildEquityCurve, buildEquitySeries } from './equity-curve';
export { reportedCurve, type ReportedCurveOptions } from './reported-curve';
export { fullCurveOf, seriesOfPoints } from './equity-series';
export { analyseBacktest, buildRoundTrips, computeMetrics, METRIC_NAMES, type RoundTrips } from './metrics';
export { renderJson, toReportJson, REPORT_FORMAT_VERSION } from './json-report';
export { renderHtml, MAX_TRADE_ROWS } from './html-report';
export { writeReport, type WrittenReport } from './write-report';
// Charts drawn like the report's, for other pages (the drift report).
export { lineLegend, renderLineChart, type LineChartSpec } from './svg-chart';
export { CHART_STYLE } from './html-style';
