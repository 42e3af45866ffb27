/* global window */
// One card per configured strategy: its live version (and shadow, with how often it disagreed),
// position, open orders, last signal, and a pause badge with the reason. Operators get resume,
// promote, rollback and reload on the card.
(function () {
  'use strict';
  const TB = (window.TB = window.TB || {});
  const { el } = TB;

  function versionLine(label, v) {
    const params = v.params === undefined ? '' : JSON.stringify(v.params, null, 2);
    return [
      el('dt', {}, label),
      el('dd', {},
        el('span', { class: 'mono version', title: String(v.version), 'data-version': String(v.version) }, TB.shortVersion(v.version)),
        params && params !== '{}' ? el('details', { 'data-key': `${label}-params` }, el('summary', {}, 'params'), el('pre', {}, params)) : ''),
    ];
  }

  function shadowSummary(summary) {
    if (!summary) return '';
    const d = summary.divergences || {};
    return el('p', { class: `shadow-summary ${summary.divergentCandles > 0 ? 'warn-text' : ''}`.trim() },
      `${summary.candles} candles compared, ${summary.divergentCandles} divergent`,
      ` (only live ${d.only_live || 0}, only shadow ${d.only_shadow || 0}, different ${d.different || 0})`);
  }

  function positionLines(positions) {
    if (positions.length === 0) return el('span', { class: 'muted' }, 'none');
    return el('ul', { class: 'plain' }, positions.map((p) => el('li', {},
      el('span', { class: 'mono' }, `${TB.decimal(p.amount)} ${p.market}`),
      p.averageEntry ? ` @ ${TB.decimal(p.averageEntry)}` : '',
      ' · realised ', el('span', { class: TB.sign(p.realizedPnl), title: p.realizedPnl }, TB.money(p.realizedPnl)),
      ' · unrealised ', el('span', { class: TB.sign(p.unrealizedPnl), title: p.unrealizedPnl }, TB.money(p.unrealizedPnl)))));
  }

  function lastSignal(s) {
    if (!s) return el('span', { class: 'muted' }, 'none yet');
    const what = s.side ? `${s.side}` : Array.isArray(s.intents) ? `${s.intents.length} intent(s)` : '';
    return el('span', {}, `${TB.marketTime(s.candleTime)} UTC · ${s.market}${what ? ` · ${what}` : ''}`,
      s.clientOrderId ? el('span', { class: 'mono small' }, ` ${s.clientOrderId}`) : '');
  }

  function operatorButtons(s, paused) {
    const name = encodeURIComponent(s.name);
    const buttons = [];
    const live = s.live && s.live.version;
    if (paused) {
      buttons.push(TB.actionButton('strategy-resume', 'Resume strategy', () => TB.runAction(`resume ${s.name}`,
        `${s.name} was paused: ${paused.reason}. It runs again from the next candle.`, `/strategies/${name}/resume`, {}), 'go',
      JSON.stringify([s.name, paused.reason, paused.sinceMs])));
    }
    if (s.shadow) {
      buttons.push(TB.actionButton('promote', 'Promote shadow', () => TB.runAction(`promote ${s.name}`,
        `The shadow version ${TB.shortVersion(s.shadow.version)} becomes live; ${TB.shortVersion(live)} is kept for a rollback.`, `/strategies/${name}/promote`, {}), '',
      JSON.stringify([s.name, s.shadow.version, live])));
    }
    const before = (s.previous || [])[0]; // newest first
    if (before !== undefined) {
      buttons.push(TB.actionButton('rollback', 'Roll back', () => TB.runAction(`roll back ${s.name}`,
        `The version live before (${TB.shortVersion(before)}) becomes live again.`, `/strategies/${name}/rollback`, {}), 'warn',
      JSON.stringify([s.name, before])));
    }
    buttons.push(TB.actionButton('reload', 'Reload', () => TB.runAction(`reload ${s.name}`,
      `The config and ${s.name}'s module are read again; a changed version starts as a shadow beside the live one.`, '/reload', { strategy: s.name }), '', s.name));
    return el('div', { class: 'buttons' }, buttons);
  }

  function card(s, data, isOperator) {
    const paused = s.paused || (data.status && (data.status.pausedStrategies || []).find((p) => p.strategy === s.name));
    const positions = ((data.positions && data.positions.positions) || []).filter((p) => p.strategy === s.name);
    const openOrders = data.openOrders ? data.openOrders.orders.filter((o) => o.strategy === s.name).length : undefined;
    const more = data.openOrders && data.openOrders.next ? '+' : '';
    return el('article', { class: `card strategy-card${paused ? ' is-paused' : ''}`, 'data-strategy': s.name },
      el('header', { class: 'card-head' }, el('h3', {}, s.name),
        paused ? el('span', { class: 'badge badge-paused', title: paused.reason }, 'PAUSED') : el('span', { class: 'badge badge-running' }, 'running')),
      el('p', { class: 'muted' }, `${(s.markets || []).join(', ')} · ${s.interval}`),
      paused ? el('p', { class: 'paused-reason' }, `Paused${paused.sinceMs ? ` since ${TB.wallTime(paused.sinceMs)}` : ''}: ${paused.reason}`) : '',
      el('dl', { class: 'facts' },
        s.live ? versionLine('live', s.live) : [el('dt', {}, 'live'), el('dd', { class: 'muted' }, 'not reported yet')],
        s.shadow ? [...versionLine('shadow', s.shadow), el('dd', { class: 'span' }, shadowSummary(s.shadow.summary))] : [],
        el('dt', {}, 'position'), el('dd', { class: 'position' }, positionLines(positions)),
        el('dt', {}, 'open orders'), el('dd', { class: 'open-orders', 'data-count': openOrders === undefined ? '' : String(openOrders) }, openOrders === undefined ? '-' : `${openOrders}${more}`),
        el('dt', {}, 'last signal'), el('dd', { class: 'last-signal' }, lastSignal(s.lastSignal))),
      isOperator ? operatorButtons(s, paused) : '');
  }

  /** Redraws every card from what was last fetched; open "params" boxes stay open. */
  TB.renderStrategies = function renderStrategies(data, isOperator) {
    const box = TB.byId('strategy-cards');
    if (!data.strategies) return;
    const open = new Set([...box.querySelectorAll('details[open]')].map((d) => `${d.closest('[data-strategy]').dataset.strategy}/${d.dataset.key}`));
    TB.patch(box, data.strategies.strategies.length === 0 ? el('p', { class: 'muted' }, 'No strategy is configured.') : data.strategies.strategies.map((s) => card(s, data, isOperator)));
    for (const d of box.querySelectorAll('details')) {
      if (open.has(`${d.closest('[data-strategy]').dataset.strategy}/${d.dataset.key}`)) d.open = true;
    }
  };
})();
