import { escapeHtml } from './html-escape';
import { formatDuration, formatMoney, formatMoneyShort, formatPercent, formatTime } from './format';
import type { BacktestResult, RoundTripTrade } from './types';

/** Rows of the trades table before it is cut (the full list is in report.json). */
export const MAX_TRADE_ROWS = 1000;

/**
 * One row per trade (an entry with the exits that closed it): times, duration, prices, PnL and what
 * opened and closed it. Dense, to fit a laptop-wide page with every column: times without the year
 * when every trade is in one (the header names it), prices without trailing zeros, headers and reasons
 * wrapped (the exact values are in report.json).
 */
export function tradesTable(trades: readonly RoundTripTrade[]): string {
  if (trades.length === 0) return '<p class="note">No closed trades.</p>';
  const shown = trades.slice(0, MAX_TRADE_ROWS);
  const note = trades.length > shown.length
    ? `<p class="note" id="trades-note">Showing the first ${shown.length} of ${trades.length} trades; all of them are in report.json.</p>`
    : '';
  const year = sharedYear(shown);
  const when = (t: number): string => (year === undefined ? formatTime(t) : formatTime(t).slice(5));
  const rows = shown.map((t) => {
    const cls = t.netPnl.gt(0) ? 'pos' : t.netPnl.lt(0) ? 'neg' : '';
    return `<tr><td>${t.id}</td><td class="text">${escapeHtml(t.market)}</td><td class="text">${t.direction}</td><td>${when(t.entryTime)}</td><td>${when(t.exitTime)}</td>`
      + `<td>${formatDuration(t.durationSeconds)}</td><td>${escapeHtml(t.amount.toString())}</td><td>${formatMoneyShort(t.entryPrice)}</td><td>${formatMoneyShort(t.exitPrice)}</td>`
      + `<td>${formatMoneyShort(t.fees)}</td><td class="${cls}">${formatMoneyShort(t.netPnl)}</td><td class="${cls}">${formatPercent(t.returnRatio * 100)}</td>`
      + `<td class="wrap">${escapeHtml(t.entryReason)}</td><td class="wrap">${escapeHtml(t.exitReason)}</td></tr>`;
  });
  const utc = year === undefined ? 'UTC' : `UTC, ${year}`;
  return `${note}<div class="scroll"><table id="trades" class="dense" data-rows="${shown.length}" data-total="${trades.length}"><thead><tr><th>#</th><th class="text">Market</th><th class="text">Direction</th>`
    // Two-line headers: a header wider than its column's values would widen the column for nothing.
    + `<th>Entry<br><span class="nowrap">(${utc})</span></th><th>Exit<br><span class="nowrap">(${utc})</span></th><th>Held</th><th>Amount</th><th>Entry<br>price</th><th>Exit<br>price</th><th>Fees</th><th>Net<br>PnL</th><th>Return</th>`
    + '<th class="wrap">Opened by</th><th class="wrap">Closed by</th></tr></thead>'
    + `<tbody>${rows.join('\n')}</tbody></table></div>`;
}

/** The UTC year of every entry and exit shown, when they share one. */
function sharedYear(trades: readonly RoundTripTrade[]): string | undefined {
  const years = new Set(trades.flatMap((t) => [formatTime(t.entryTime).slice(0, 4), formatTime(t.exitTime).slice(0, 4)]));
  return years.size === 1 ? [...years][0] : undefined;
}

export function openPositionsTable(result: BacktestResult): string {
  if (result.openPositions.length === 0) return '';
  const rows = result.openPositions.map((p) =>
    `<tr><td>${escapeHtml(p.market)}</td><td>${p.direction}</td><td>${formatTime(p.entryTime)}</td><td>${escapeHtml(p.amount.toString())}</td>`
    + `<td>${formatMoney(p.entryPrice, 4)}</td><td>${formatMoney(p.fees, 4)}</td><td>${formatMoney(p.realizedPnl, 4)}</td><td class="wrap">${escapeHtml(p.entryReason)}</td></tr>`);
  return '<h2>Open at the end (marked to market in equity, not in trade statistics)</h2>'
    + '<div class="scroll"><table id="open-positions"><thead><tr><th>Market</th><th>Direction</th><th>Entry (UTC)</th><th>Amount open</th><th>Entry price</th><th>Fees</th>'
    + '<th>Realised on the part exited</th><th class="wrap">Entry</th></tr></thead>'
    + `<tbody>${rows.join('')}</tbody></table></div>`;
}
