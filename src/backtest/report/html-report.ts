import { intervalSeconds } from '../../domain/candle';
import { escapeHtml } from './html-escape';
import { formatMoney, formatPercent, formatRatio, formatTime } from './format';
import { renderLineChart, type ChartMarker } from './svg-chart';
import type { BacktestMetrics, BacktestResult, RoundTripTrade } from './types';

/** Rows of the trades table before it is cut (the full list is in report.json). */
export const MAX_TRADE_ROWS = 1000;

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1d2433;background:#f6f7f9;margin:0}
main{max-width:1100px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.sub{color:#5b6475;margin:0 0 16px}
table{border-collapse:collapse;background:#fff;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:5px 10px;border-bottom:1px solid #e3e6eb;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}
thead th{background:#eef0f4;position:sticky;top:0}
.summary{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:0 24px}
.pos{color:#137333}.neg{color:#b3261e}
.note{color:#5b6475;font-style:italic;margin:6px 0}
.chart{background:#fff;border:1px solid #e3e6eb;margin:0 0 12px}
svg{display:block;width:100%;height:auto}
svg .line{fill:none;stroke:#2563eb;stroke-width:1.4;stroke-linejoin:round}
svg .grid{stroke:#eceef2;stroke-width:1}
svg .axis{stroke:#9aa3b2;stroke-width:1}
svg .tick{font-size:12px;fill:#4b5363}
svg .axis-label{font-size:13px;fill:#1d2433}
svg .marker{stroke-width:1.3}
svg .marker.buy{fill:#16a34a;stroke:#16a34a}svg .marker.sell{fill:#dc2626;stroke:#dc2626}
svg .marker.exit{fill:#fff}
svg .marker.flip{stroke:#111827}
svg .dense .marker{opacity:.75;stroke-width:1}
.legend{display:flex;gap:18px;flex-wrap:wrap;color:#4b5363;font-size:13px;margin:4px 0 8px}
.legend svg{display:inline-block;width:14px;height:12px;vertical-align:-1px;margin-right:4px}
`;

/**
 * Renders the whole report as one self-contained HTML page: inline CSS, inline SVG charts drawn
 * here (no script, font or network request), every input string escaped. Charts: `#equity-chart`
 * (one <svg>) and `#price-chart` (a <div> with one <svg class="price-panel" data-market=…> per
 * market, one marker per fill). Deterministic: the same result gives the same bytes.
 */
export function renderHtml(result: BacktestResult): string {
  const { run, metrics } = result;
  const title = run.title ?? 'Backtest report';
  const markets = Object.keys(run.candles);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
<p class="sub">${escapeHtml(markets.join(', '))} · ${escapeHtml(run.interval)} candles · ${formatTime(metrics.startTime)} → ${formatTime(metrics.endTime)} UTC · values in ${escapeHtml(run.quoteCurrency)}</p>
<h2>Summary</h2>
${summaryTable(metrics, run.quoteCurrency)}
<h2>Equity</h2>
<div class="chart">${equityChart(result)}</div>
<h2>Price and fills</h2>
${legend()}
<div id="price-chart" data-markets="${markets.length}">
${markets.map((m) => `<div class="chart">${priceChart(result, m)}</div>`).join('\n')}
</div>
<h2>Trades</h2>
${tradesTable(result.trades)}
${openPositionsTable(result)}
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
    ['Exposure', formatPercent(m.exposure * 100, 1)],
  ];
  const right: Array<[string, string]> = [
    ['Trades', String(m.tradeCount)],
    ['Win rate', m.winRate === null ? '–' : `${formatPercent(m.winRate * 100, 1)} (${m.winCount} won, ${m.lossCount} lost)`],
    ['Profit factor', formatRatio(m.profitFactor)],
    ['Average trade', `${formatMoney(m.averageTrade)} ${q}`],
    ['Best / worst trade', `${formatMoney(m.bestTrade)} / ${formatMoney(m.worstTrade)} ${q}`],
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
    values: run.equity.map((p) => p.equity.toNumber()),
    from: result.metrics.startTime,
    to: result.metrics.endTime,
    maxStep: intervalSeconds(run.interval) * 1.5,
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
  const times = first === undefined ? [] : [first.time, ...candles.map((c) => c.time + step)];
  const values = first === undefined ? [] : [first.open.toNumber(), ...candles.map((c) => c.close.toNumber())];
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

function tradesTable(trades: readonly RoundTripTrade[]): string {
  if (trades.length === 0) return '<p class="note">No closed trades.</p>';
  const shown = trades.slice(0, MAX_TRADE_ROWS);
  const note = trades.length > shown.length
    ? `<p class="note" id="trades-note">Showing the first ${shown.length} of ${trades.length} trades; all of them are in report.json.</p>`
    : '';
  const rows = shown.map((t) => {
    const cls = t.netPnl.gt(0) ? 'pos' : t.netPnl.lt(0) ? 'neg' : '';
    return `<tr><td>${t.id}</td><td>${escapeHtml(t.market)}</td><td>${t.direction}</td><td>${formatTime(t.entryTime)}</td><td>${formatTime(t.exitTime)}</td>`
      + `<td>${escapeHtml(t.amount.toString())}</td><td>${formatMoney(t.entryPrice, 4)}</td><td>${formatMoney(t.exitPrice, 4)}</td>`
      + `<td>${formatMoney(t.fees, 4)}</td><td class="${cls}">${formatMoney(t.netPnl, 4)}</td><td class="${cls}">${formatPercent(t.returnRatio * 100)}</td></tr>`;
  });
  return `${note}<table id="trades" data-rows="${shown.length}" data-total="${trades.length}"><thead><tr><th>#</th><th>Market</th><th>Direction</th>`
    + '<th>Entry (UTC)</th><th>Exit (UTC)</th><th>Amount</th><th>Entry price</th><th>Exit price</th><th>Fees</th><th>Net PnL</th><th>Return</th></tr></thead>'
    + `<tbody>${rows.join('\n')}</tbody></table>`;
}

function openPositionsTable(result: BacktestResult): string {
  if (result.openPositions.length === 0) return '';
  const rows = result.openPositions.map((p) =>
    `<tr><td>${escapeHtml(p.market)}</td><td>${p.direction}</td><td>${formatTime(p.entryTime)}</td><td>${escapeHtml(p.amount.toString())}</td>`
    + `<td>${formatMoney(p.entryPrice, 4)}</td><td>${formatMoney(p.fees, 4)}</td></tr>`);
  return '<h2>Open at the end (marked to market in equity, not in trade statistics)</h2>'
    + '<table id="open-positions"><thead><tr><th>Market</th><th>Direction</th><th>Entry (UTC)</th><th>Amount</th><th>Entry price</th><th>Fees</th></tr></thead>'
    + `<tbody>${rows.join('')}</tbody></table>`;
}
