import { escapeHtml } from './html-escape';
import { formatDuration, formatMoney, formatPercent, formatTime } from './format';
import type { BacktestResult, RoundTripTrade } from './types';

/** Rows of the trades table before it is cut (the full list is in report.json). */
export const MAX_TRADE_ROWS = 1000;

/** One row per trade (an entry with the exits that closed it): times, duration, prices, PnL and what opened and closed it. */
export function tradesTable(trades: readonly RoundTripTrade[]): string {
  if (trades.length === 0) return '<p class="note">No closed trades.</p>';
  const shown = trades.slice(0, MAX_TRADE_ROWS);
  const note = trades.length > shown.length
    ? `<p class="note" id="trades-note">Showing the first ${shown.length} of ${trades.length} trades; all of them are in report.json.</p>`
    : '';
  const rows = shown.map((t) => {
    const cls = t.netPnl.gt(0) ? 'pos' : t.netPnl.lt(0) ? 'neg' : '';
    return `<tr><td>${t.id}</td><td>${escapeHtml(t.market)}</td><td>${t.direction}</td><td>${formatTime(t.entryTime)}</td><td>${formatTime(t.exitTime)}</td>`
      + `<td>${formatDuration(t.durationSeconds)}</td><td>${escapeHtml(t.amount.toString())}</td><td>${formatMoney(t.entryPrice, 4)}</td><td>${formatMoney(t.exitPrice, 4)}</td>`
      + `<td>${formatMoney(t.fees, 4)}</td><td class="${cls}">${formatMoney(t.netPnl, 4)}</td><td class="${cls}">${formatPercent(t.returnRatio * 100)}</td>`
      + `<td class="wrap">${escapeHtml(t.entryReason)}</td><td class="wrap">${escapeHtml(t.exitReason)}</td></tr>`;
  });
  return `${note}<div class="scroll"><table id="trades" data-rows="${shown.length}" data-total="${trades.length}"><thead><tr><th>#</th><th>Market</th><th>Direction</th>`
    + '<th>Entry (UTC)</th><th>Exit (UTC)</th><th>Held</th><th>Amount</th><th>Entry price</th><th>Exit price</th><th>Fees</th><th>Net PnL</th><th>Return</th>'
    + '<th class="wrap">Entry</th><th class="wrap">Exit</th></tr></thead>'
    + `<tbody>${rows.join('\n')}</tbody></table></div>`;
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
