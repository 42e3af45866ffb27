/* global window */
// The orders and fills tables. Their times are MARKET time (the candle an order came from, the
// moment a fill happened on the venue's clock), in UTC, and the column headers say so.
(function () {
  'use strict';
  const TB = (window.TB = window.TB || {});
  const { el } = TB;

  /** Statuses in which the venue holds the order, so a cancel can reach it. */
  const CANCELLABLE = new Set(['open', 'triggered', 'partially_filled']);

  const num = (value, title) => el('td', { class: 'num', title: title || undefined }, value);
  const limitOf = (o) => (o.kind === 'oco_sl' && o.stopLimitPrice ? o.stopLimitPrice : o.price);

  function cancelButton(o) {
    return TB.actionButton('cancel', 'Cancel', () => TB.runAction(`cancel ${o.clientOrderId}`,
      `${o.strategy}'s ${o.side} ${o.kind} of ${TB.decimal(o.amount)} ${o.market} at ${TB.decimal(limitOf(o))} is cancelled at the venue (both legs of an OCO).`,
      `/orders/${encodeURIComponent(o.clientOrderId)}/cancel`, {}), 'small danger', o.clientOrderId);
  }

  function orderRow(o, isOperator) {
    const filled = Number(o.filledAmount) > 0 ? TB.decimal(o.filledAmount) : '0';
    return el('tr', { 'data-order': o.clientOrderId, 'data-status': o.status },
      el('td', { class: 'nowrap' }, TB.marketTime(o.candleTime)),
      el('td', {}, o.strategy),
      el('td', {}, o.market),
      el('td', { class: `side-${o.side}` }, o.side),
      el('td', {}, o.kind),
      num(TB.decimal(o.amount), o.amount),
      // An OCO's stop-loss leg trades at its own limit once its stop triggers; the record's price is the take-profit's.
      num([TB.decimal(limitOf(o)), o.activationPrice ? el('span', { class: 'muted small' }, ` stop ${TB.decimal(o.activationPrice)}`) : ''], limitOf(o)),
      el('td', { class: `status status-${o.status}`, title: o.reason || undefined }, o.status.replace(/_/g, ' '), o.reason ? el('span', { class: 'muted small' }, ` (${o.reason})`) : ''),
      num(filled, o.filledAmount),
      el('td', { class: 'mono small', title: o.strategyVersion ? `strategy version ${o.strategyVersion}` : undefined }, o.clientOrderId),
      isOperator ? el('td', {}, CANCELLABLE.has(o.status) ? cancelButton(o) : '') : '');
  }

  /** Fills the orders table body; `append` adds a further page below the rows already shown. */
  TB.renderOrders = function renderOrders(orders, isOperator, append) {
    const body = TB.byId('orders-body');
    const rows = orders.map((o) => orderRow(o, isOperator));
    if (append) body.append(...rows);
    else TB.patch(body, rows);
    const empty = body.children.length === 0;
    TB.byId('orders-empty').hidden = !empty;
  };

  TB.renderFills = function renderFills(answer) {
    const fills = answer.fills || [];
    TB.patch(TB.byId('fills-body'), fills.map((f) => el('tr', { 'data-order': f.clientOrderId },
      el('td', { class: 'nowrap' }, f.marketMs === undefined ? '-' : TB.marketTime(f.marketMs, true)),
      el('td', {}, f.strategy),
      el('td', {}, f.market),
      el('td', { class: `side-${f.side}` }, f.side),
      num(TB.decimal(f.amount), f.amount),
      num(TB.decimal(f.price), f.price),
      num(TB.decimal(f.fee), f.fee),
      el('td', { class: 'mono small' }, f.clientOrderId))));
    TB.byId('fills-empty').hidden = fills.length > 0;
  };
})();
