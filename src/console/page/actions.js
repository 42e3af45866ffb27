/* global window */
// Operator actions: each asks first in the page's own dialog (styled, and a test can click it, which
// window.confirm would not allow), then POSTs and shows what the daemon answered it applied.
(function () {
  'use strict';
  const TB = (window.TB = window.TB || {});

  /** Resolves true when the operator confirms, false when they cancel (button, Esc or backdrop). */
  function confirmInPage(title, text, confirmLabel) {
    const dialog = TB.byId('confirm-dialog');
    TB.byId('confirm-title').textContent = title;
    TB.byId('confirm-text').textContent = text;
    TB.byId('confirm-yes').textContent = confirmLabel;
    return new Promise((resolve) => {
      const done = (answer) => {
        dialog.removeEventListener('close', onClose);
        TB.byId('confirm-yes').removeEventListener('click', onYes);
        TB.byId('confirm-no').removeEventListener('click', onNo);
        if (dialog.open) dialog.close();
        resolve(answer);
      };
      const onYes = () => done(true);
      const onNo = () => done(false);
      const onClose = () => done(false);
      TB.byId('confirm-yes').addEventListener('click', onYes);
      TB.byId('confirm-no').addEventListener('click', onNo);
      dialog.addEventListener('close', onClose);
      dialog.showModal();
      TB.byId('confirm-no').focus(); // Enter on a stray keypress cancels rather than acts
    });
  }

  /** Shows an action's outcome: 'sending', then 'ok' (applied), 'pending' (stored, no daemon confirmed yet) or 'fail'. */
  function showResult(kind, text) {
    const box = TB.byId('action-result');
    box.hidden = false;
    box.className = `action-result ${kind}`;
    box.dataset.result = kind;
    TB.fill(box, TB.el('span', { class: 'result-text' }, text), TB.el('button', { type: 'button', class: 'link', 'aria-label': 'dismiss', onclick: () => { box.hidden = true; } }, '×'));
  }

  /**
   * Confirm, POST, report. `what` names the action for the operator ("pause trading"); `detail`
   * is the dialog's sentence. Resolves with the answer (or undefined when cancelled or failed).
   */
  TB.runAction = async function runAction(what, detail, path, body) {
    if (!(await confirmInPage(`Confirm: ${what}`, detail, what))) return undefined;
    showResult('sending', `${what}: sending…`);
    try {
      const answer = await TB.api(path, { method: 'POST', body: body || {} });
      const kind = answer.ok === false ? 'fail' : answer.applied === false ? 'pending' : 'ok';
      showResult(kind, `${what}: ${answer.message || (answer.ok ? 'done' : 'refused')}`);
      return answer;
    } catch (err) {
      showResult('fail', `${what}: ${err.message}`);
      return undefined;
    } finally {
      TB.refreshAll();
    }
  };

  /**
   * A button that runs an operator action; `data-action` names it (tests count them). `key` holds
   * everything its click handler acts on and says (the order, the strategy and versions): TB.patch
   * keeps a button only while it is equal, so a kept button never acts on something else.
   */
  TB.actionButton = function actionButton(action, label, onClick, extraClass, key) {
    return TB.el('button', { type: 'button', class: `action ${extraClass || ''}`.trim(), 'data-action': action, 'data-key': key, onclick: onClick }, label);
  };
})();
