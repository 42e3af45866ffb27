/* global window */
// The drift checks (the daemon against its own backtest, docs/drift.md) and the audit log of
// operator actions from the CLI and the console.
(function () {
  'use strict';
  const TB = (window.TB = window.TB || {});
  const { el } = TB;

  TB.renderDrift = function renderDrift(answer) {
    const checks = answer.checks || [];
    TB.patch(TB.byId('drift-list'), checks.map((c) => {
      const over = c.unexplained > c.allowed;
      return el('li', { class: `drift-check ${over ? 'over' : 'within'}`, 'data-unexplained': String(c.unexplained) },
        el('div', { class: 'row' },
          el('span', { class: 'nowrap' }, `${TB.marketTime(c.from)} – ${TB.marketTime(c.to)} UTC`),
          el('span', { class: `badge ${over ? 'badge-bad' : 'badge-ok'}` }, `${c.unexplained} unexplained / ${c.allowed} allowed`)),
        (c.first || []).length > 0
          ? el('details', {}, el('summary', {}, `first ${c.first.length} difference(s)`), el('ul', { class: 'plain small' }, c.first.map((f) => el('li', { class: 'mono' }, f))))
          : '');
    }));
    TB.byId('drift-empty').hidden = checks.length > 0;
  };

  TB.renderAudit = function renderAudit(answer) {
    const entries = answer.entries || [];
    TB.patch(TB.byId('audit-list'), entries.map((e) => el('li', { class: `audit-entry result-${e.result}`, 'data-action-name': e.action },
      el('div', { class: 'row' },
        el('span', {}, el('strong', {}, e.action), e.target ? ` ${e.target}` : '', ` · ${e.who} via ${e.via}`),
        el('span', { class: 'muted nowrap' }, TB.wallTime(e.atMs))),
      e.reason ? el('div', { class: 'small' }, `reason: ${e.reason}`) : '',
      el('div', { class: 'small' }, el('span', { class: `badge result-badge-${e.result}` }, e.result), ` ${e.message}`))));
    TB.byId('audit-empty').hidden = entries.length > 0;
  };
})();
