/* global window */
// The overview: the account's trading state (with the operator's pause / reduce-only / resume),
// PnL today and in total, and the daemon's replicas and leases (GET /status and /positions).
(function () {
  'use strict';
  const TB = (window.TB = window.TB || {});
  const { el } = TB;

  const STATE_WORDS = {
    active: 'ACTIVE',
    reducing: 'REDUCE-ONLY',
    halted: 'HALTED',
  };

  /** What each trading-state button does, in the words the confirmation shows. */
  const TRADING_ACTIONS = [
    { action: 'halt', state: 'halted', label: 'Pause (halt)', what: 'pause trading', detail: 'No new orders and no exits: only cancels go out until trading is resumed. Open orders stay at the venue.', cls: 'danger' },
    { action: 'reduce', state: 'reducing', label: 'Reduce only', what: 'switch to reduce-only', detail: 'Only exits and cancels go out: positions can be wound down, none opened or grown.', cls: 'warn' },
    { action: 'resume', state: 'active', label: 'Resume', what: 'resume trading', detail: 'Every strategy trades again, within the risk limits.', cls: 'go' },
  ];

  /** Builds the operator's controls once (viewers never get them: not hidden, absent). */
  TB.renderTradingControls = function renderTradingControls() {
    const input = el('input', { id: 'trading-reason-input', type: 'text', maxlength: '500', autocomplete: 'off', placeholder: 'why (logged, audited and notified)' });
    const error = el('p', { id: 'trading-reason-error', class: 'field-error', role: 'alert', hidden: true });
    const buttons = TRADING_ACTIONS.map((a) => TB.actionButton(a.action, a.label, () => {
      const reason = input.value.trim();
      if (reason === '') {
        error.textContent = 'Give a reason first: it is logged, audited and notified.';
        error.hidden = false;
        input.focus();
        return;
      }
      error.hidden = true;
      TB.runAction(a.what, `${a.detail} Reason: “${reason}”.`, '/trading-state', { state: a.state, reason }).then((answer) => {
        if (answer && answer.ok) input.value = '';
      });
    }, a.cls));
    TB.fill(TB.byId('trading-controls'),
      el('label', { for: 'trading-reason-input' }, 'Reason'), input, error,
      el('div', { class: 'buttons', id: 'trading-buttons' }, buttons));
  };

  TB.renderStatus = function renderStatus(status) {
    const state = status.tradingState || {};
    const box = TB.byId('trading-state');
    box.textContent = STATE_WORDS[state.state] || String(state.state || '?');
    box.dataset.state = state.state || '';
    box.className = `trading-state state-${state.state || 'unknown'}`;
    TB.byId('trading-reason').textContent = [state.reason, state.atMs ? `since ${TB.wallTime(state.atMs)}` : ''].filter(Boolean).join(' · ');
    // The state shown is the stored one; a replica still trading in another state is named until it catches up.
    const behind = (status.replicas || []).filter((r) => r.state !== state.state);
    const pending = TB.byId('trading-pending');
    pending.hidden = behind.length === 0;
    pending.textContent = behind.length === 0 ? '' : `not applied yet by ${behind.map((r) => `${r.instance} (still ${r.state})`).join(', ')}`;
    // Guardrails in force (docs/risk.md): what they stop, why, and how they lift.
    const guards = status.guardrails || [];
    const guardList = TB.byId('guardrails');
    guardList.hidden = guards.length === 0;
    TB.patch(guardList, guards.map((g) => el('li', { class: 'warn-text', 'data-guard': g.guard },
      `${g.guard} on ${g.scope} (${g.action === 'halt' ? 'only cancels' : 'no new entries'}): ${g.reason}; `,
      g.untilMs === undefined ? `until ${g.scope === 'account' ? 'Resume' : `strategy ${g.scope.split('|')[0]} is resumed`}` : `lifts ${TB.marketTime(g.untilMs, true)} UTC`)));
    const buttons = TB.byId('trading-buttons');
    for (const a of TRADING_ACTIONS) {
      const button = buttons && buttons.querySelector(`button[data-action="${a.action}"]`);
      if (button) button.disabled = a.state === state.state;
    }

    TB.byId('mode').textContent = status.mode === 'live' ? 'LIVE' : 'paper';
    TB.byId('mode').className = `badge mode-${status.mode}`;
    const market = TB.byId('market-time');
    market.textContent = `market ${TB.marketTime(status.marketTimeMs, true)} UTC`;
    market.dataset.ms = String(status.marketTimeMs);

    TB.patch(TB.byId('replicas'), (status.replicas || []).length === 0 ? el('li', { class: 'muted' }, 'no replica reported') : status.replicas.map((r) =>
      el('li', {}, el('span', { class: 'mono' }, r.instance), ` ${r.state} · applied #${r.appliedSeq} · seen ${TB.duration(r.ageMs)} ago`)));
    // How the replica that answered sees itself: readiness checks, and streams (unhealthy = REST polling).
    const self = status.answeredBy || { ready: false, checks: {}, streams: [] };
    TB.patch(TB.byId('health'), [
      el('li', {}, self.ready ? el('span', { class: 'good' }, 'ready') : el('span', { class: 'bad' }, 'NOT READY'), ': ',
        Object.entries(self.checks).map(([name, c]) => `${name} ${c.ok ? 'ok' : `failing${c.reason ? ` (${c.reason})` : ''}`}`).join(', ')),
      ...self.streams.map((s) => el('li', {}, `stream ${s.stream}: `, s.healthy ? 'healthy' : s.connected ? el('span', { class: 'warn-text' }, 'connected, REST polling') : el('span', { class: 'bad' }, 'down, REST polling'))),
    ]);
    TB.patch(TB.byId('leases'), (status.leases || []).length === 0 ? el('li', { class: 'muted' }, 'none') : status.leases.map((l) =>
      el('li', {}, `${l.strategy} · ${l.market}: `, l.owner ? el('span', { class: 'mono' }, l.owner) : el('span', { class: 'bad' }, 'not held'),
        l.remainingMs !== undefined ? ` (${TB.duration(l.remainingMs)} left)` : '')));
  };

  function pnlCell(id, value, currency) {
    const node = TB.byId(id);
    node.textContent = `${TB.money(value)} ${currency}`;
    node.title = `${value} ${currency}`;
    node.className = `pnl-value ${TB.sign(value)}`;
    node.dataset.value = String(value);
  }

  TB.renderPnl = function renderPnl(answer) {
    const t = answer.totals || {};
    // Only for the eye: the two exact parts are shown beside it.
    const total = TB.decimal((Number(t.realizedPnl || 0) + Number(t.unrealizedPnl || 0)).toFixed(8));
    pnlCell('pnl-today', t.realizedToday, answer.currency);
    pnlCell('pnl-realized', t.realizedPnl, answer.currency);
    pnlCell('pnl-unrealized', t.unrealizedPnl, answer.currency);
    pnlCell('pnl-total', total, answer.currency);
  };
})();
