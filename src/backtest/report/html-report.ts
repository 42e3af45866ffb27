import { intervalSeconds } from '../../domain/candle';
import { closeNumber } from '../../candle-files/csv-columns';
import { escapeHtml } from './html-escape';
import { formatDuration, formatMoney, formatPercent, formatRatio, formatTime } from './format';
import { healthBanner, healthSection, ordersSection, guardrailsSection, rulesSection, settingsSection } from './html-run-sections';
import { pageStart } from './html-style';
import { openPositionsTable, tradesTable } from './html-trades';
import { equityValue } from './metrics';
import { lineLegend, renderLineChart, type ChartMarker } from './svg-chart';
import type { BacktestMetrics, BacktestResult } from './types';

export { MAX_TRADE_ROWS } from './html-trades';

/**
 * Renders the whole report as one self-contained HTML page: inline CSS, inline SVG charts drawn
 * here (no script, font or network request), every input string escaped. First whether the run
 * failed (`#run-health`), then the summary, the charts: `#equity-chart` (equity, with the
 * buy-and-hold benchmark as `path.line.benchmark`), `#drawdown-chart` (percent below the running
 * peak) and `#price-chart` (a <div> with one <svg class="price-panel" data-market=…> per market, one
 * marker per fill), the strategy's health, the orders (denials and rejections explained), the
 * trades, the rules in force and the run's settings. Deterministic: the same result gives the same bytes.
 */
export function renderHtml(result: BacktestResult): string {
  const { run, metrics } = result;
  const title = run.title ?? 'Backtest report';
  const markets = Object.keys(run.candles);
  return `${pageStart(title)}<p class="sub">${escapeHtml(markets.join(', '))} · ${escapeHtml(run.interval)} candles · ${formatTime(metrics.startTime)} → ${formatTime(metrics.endTime)} UTC · values in ${escapeHtml(run.quoteCurrency)}</p>
${healthBanner(run.context)}
<h2>Summary</h2>
${summaryTable(metrics, run.quoteCurrency)}
<h2>Equity and drawdown</h2>
${equityLegend(result)}
<div class="chart">${equityChart(result)}</div>
<div class="chart">${drawdownChart(result)}</div>
<h2>Price and fills</h2>
${legend()}
<div id="price-chart" data-markets="${markets.length}">
${markets.map((m) => `<div class="chart">${priceChart(result, m)}</div>`).join('\n')}
</div>
${healthSection(run.context)}
${ordersSection(run.context)}
${guardrailsSection(run.context)}
<h2>Trades</h2>
<p class="note">One trade per position round trip (flat to flat, per market), with the portfolio's PnL (average cost, every fee counted when paid).</p>
${tradesTable(result.trades)}
${openPositionsTable(result)}
${rulesSection(run.context)}
${settingsSection(run.context)}
</main>
</body>
</html>
`;
}

function summaryTable(m: BacktestMetrics, quote: string): string {
  const q = escapeHtml(quote);
  const signed = (text: string, sign: number): string => `<span class="${sign > 0 ? 'pos' : sign < 0 ? 'neg' : ''}">${text}</span>`;
  const left: Array<[string, string]> = [
    ['Start equity', `${formatMoney(m.startEquity)} ${q}`],
    ['End equity', `${formatMoney(m.endEquity)} ${q}`],
    ['Net PnL (after fees)', signed(`${formatMoney(m.netPnl)} ${q}`, m.netPnl.comparedTo(0))],
    ['Return', signed(formatPercent(m.returnPct), m.returnPct ?? 0)],
    ['Realized PnL (closed trades)', `${formatMoney(m.realizedPnl)} ${q}`],
    ['Total fees', `${formatMoney(m.totalFees)} ${q}`],
    ['Max drawdown', `${formatMoney(m.maxDrawdown)} ${q} (${formatPercent(m.maxDrawdownPct)})`],
    ['CAGR', formatPercent(m.cagrPct)],
    ['Calmar (CAGR / max drawdown)', formatRatio(m.calmar)],
    ['Exposure', formatPercent(m.exposure * 100, 1)],
    ['Buy and hold return', `${formatPercent(m.benchmarkReturnPct)} (max drawdown ${formatPercent(m.benchmarkMaxDrawdownPct)})`],
  ];
  const right: Array<[string, string]> = [
    ['Trades', String(m.tradeCount)],
    ['Win rate', m.winRate === null ? '–' : `${formatPercent(m.winRate * 100, 1)} (${m.winCount} won, ${m.lossCount} lost)`],
    ['Profit factor', formatRatio(m.profitFactor)],
    ['Average trade', `${formatMoney(m.averageTrade)} ${q}`],
    ['Best / worst trade', `${formatMoney(m.bestTrade)} / ${formatMoney(m.worstTrade)} ${q}`],
    ['Average time in a trade', formatDuration(m.averageTradeSeconds)],
    ['SQN (trades)', formatRatio(m.sqn)],
    ['Sharpe (annualised, rf = 0)', formatRatio(m.sharpe)],
    ['Sortino (annualised, rf = 0)', formatRatio(m.sortino)],
    ['Candles', String(m.candleCount)],
  ];
  const table = (rows: Array<[string, string]>): string =>
    `<table><tbody>${rows.map(([k, v]) => `<tr><th scope="row">${escapeHtml(k)}</th><td>${v}</td></tr>`).join('')}</tbody></table>`;
  return `<div class="summary" id="summary">${table(left)}${table(right)}</div>`;
}

function equityChart(result: BacktestResult): string {
  const { run } = result;
  return renderLineChart({
    id: 'equity-chart',
    className: 'equity',
    height: 300,
    title: 'Equity curve',
    yLabel: `equity (${run.quoteCurrency})`,
    times: run.equity.map((p) => p.time),
    values: run.equity.map(equityValue),
    from: result.metrics.startTime,
    to: result.metrics.endTime,
    maxStep: curveStep(run) * 1.5,
    ...(result.benchmark.equity.length === run.equity.length ? { series: [{ values: result.benchmark.equity, className: 'benchmark' }] } : {}),
  });
}

/** Names both lines of the equity chart with their end values (the benchmark's description says how it was built). */
function equityLegend(result: BacktestResult): string {
  const q = result.run.quoteCurrency;
  const items = [{ className: 'equity-line', label: `equity, ends at ${formatMoney(result.metrics.endEquity)} ${q}` }];
  const b = result.benchmark;
  if (b.equity.length === result.run.equity.length) items.push({ className: 'benchmark', label: `${b.description}, ends at ${formatMoney(b.endEquity)} ${q}` });
  return lineLegend(items);
}

/** The spacing of the drawn curve: a step longer than it is a data gap. */
function curveStep(run: BacktestResult['run']): number {
  return Math.max(intervalSeconds(run.interval), intervalSeconds(run.curveInterval ?? run.interval));
}

/** Percent below the running peak at each equity point (0 at a new high). */
function drawdownChart(result: BacktestResult): string {
  const { run } = result;
  let peak = -Infinity;
  const values = run.equity.map((p) => {
    const v = equityValue(p);
    if (v > peak) peak = v;
    return peak > 0 ? -((peak - v) / peak) * 100 : 0;
  });
  return renderLineChart({
    id: 'drawdown-chart', className: 'drawdown', height: 180, title: 'Drawdown', yLabel: 'below peak (%)',
    times: run.equity.map((p) => p.time), values, from: result.metrics.startTime, to: result.metrics.endTime,
    maxStep: curveStep(run) * 1.5,
  });
}

function priceChart(result: BacktestResult, market: string): string {
  const { run } = result;
  const step = intervalSeconds(run.interval);
  const candles = run.candles[market] ?? [];
  const markers: ChartMarker[] = [];
  result.fills.forEach((f, i) => {
    if (f.market !== market) return;
    const action = result.fillActions[i] ?? 'entry';
    markers.push({
      t: f.time,
      v: f.price.toNumber(),
      side: f.side,
      action,
      label: `${f.side} ${f.amount.toString()} @ ${f.price.toString()} (${action}) ${formatTime(f.time)} ${f.clientOrderId}`,
    });
  });
  // Like the equity curve: the first open at the first candle's open time, then each close at the
  // candle's close instant, so fills (which happen inside a candle) line up in time with both charts.
  const first = candles[0];
  const times: number[] = first === undefined ? [] : new Array<number>(candles.length + 1);
  const values: number[] = first === undefined ? [] : new Array<number>(candles.length + 1);
  if (first !== undefined) {
    times[0] = first.time;
    values[0] = first.open.toNumber();
    for (let i = 0; i < candles.length; i++) {
      const c = candles[i] as (typeof candles)[number];
      times[i + 1] = c.time + step;
      values[i + 1] = closeNumber(c);
    }
  }
  return renderLineChart({
    className: 'price-panel',
    height: 340,
    title: `${market} close price with fills`,
    yLabel: `${market} price`,
    times,
    values,
    from: result.metrics.startTime,
    to: result.metrics.endTime,
    maxStep: step * 1.5,
    markers,
    data: { market },
  });
}

function legend(): string {
  const tri = (cls: string, up: boolean): string =>
    `<svg viewBox="-6 -1 12 11" aria-hidden="true"><path class="marker ${cls}" d="${up ? 'M0 0l5 9h-10z' : 'M0 9l5 -9h-10z'}"/></svg>`;
  return `<div class="legend">
<span>${tri('buy entry', true)}buy, opens/adds</span><span>${tri('buy exit', true)}buy, closes/reduces</span>
<span>${tri('sell entry', false)}sell, opens/adds</span><span>${tri('sell exit', false)}sell, closes/reduces</span>
<span>outlined: flips the position</span></div>`;
}
