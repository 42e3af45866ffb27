/* global window, document, URLSearchParams */
// The console page's start and its refresh loop: the token (from the fragment or pasted), who it
// belongs to, then each part of the page fetched when a live event says it changed (coalesced over
// 300 ms) and every 10 s in any case, in case an event was missed.
(function () {
  'use strict';
  const TB = window.TB;
  const POLL_MS = 10_000;
  const COALESCE_MS = 300;
  const OPEN_ORDERS_LIMIT = 200;
  const PAGE = 50;

  const state = {
    isOperator: false,
    status: undefined,
    strategies: undefined,
    positions: undefined,
    openOrders: undefined,
    orders: { status: 'open', strategy: '', market: '', next: undefined },
    stream: undefined,
    poller: undefined,
  };

  const cards = () => TB.renderStrategies(state, state.isOperator);

  function ordersPath(status, limit, cursor) {
    const q = new URLSearchParams({ status, limit: String(limit) });
    if (state.orders.strategy) q.set('strategy', state.orders.strategy);
    if (state.orders.market) q.set('market', state.orders.market);
    if (cursor) q.set('cursor', cursor);
    return `/orders?${q}`;
  }

  /** Each part of the page: what it fetches and what it redraws. */
  const PARTS = {
    async status() {
      state.status = await TB.api('/status');
      TB.renderStatus(state.status);
      cards();
    },
    async strategies() {
      state.strategies = await TB.api('/strategies');
      fillFilters(state.strategies.strategies);
      cards();
    },
    async positions() {
      state.positions = await TB.api('/positions');
      TB.renderPnl(state.positions);
      cards();
    },
    async orders() {
      // All open orders for the cards' counts; the table's own query unless it is the same.
      const open = await TB.api(`/orders?status=open&limit=${OPEN_ORDERS_LIMIT}`);
      state.openOrders = open;
      cards();
      const sameAsOpen = state.orders.status === 'open' && !state.orders.strategy && !state.orders.market;
      const table = sameAsOpen ? open : await TB.api(ordersPath(state.orders.status, PAGE));
      state.orders.next = table.next;
      TB.renderOrders(table.orders, state.isOperator, false);
      TB.byId('orders-more').hidden = !table.next;
    },
    async fills() {
      TB.renderFills(await TB.api(`/fills?limit=${PAGE}`));
    },
    async equity() {
      TB.renderEquity(await TB.api('/equity'));
    },
    async drift() {
      TB.renderDrift(await TB.api('/drift'));
    },
    async audit() {
      TB.renderAudit(await TB.api(`/audit?limit=${PAGE}`));
    },
  };
  const ALL = Object.keys(PARTS);

  /** What each live event may have changed. */
  const AFFECTS = {
    candle: ['status', 'positions', 'equity', 'strategies'],
    order: ['orders', 'strategies'],
    fill: ['fills', 'positions', 'equity', 'orders'],
    trading_state: ['status', 'audit'],
    strategy_paused: ['status', 'strategies'],
    version_changed: ['strategies', 'audit'],
    drift: ['drift'],
  };

  // --- refresh scheduling: parts marked dirty are fetched together after COALESCE_MS, one fetch per part at a time.
  const dirty = new Set();
  const running = new Set();
  let flushTimer;

  function mark(parts) {
    for (const p of parts) dirty.add(p);
    if (flushTimer === undefined) flushTimer = setTimeout(flush, COALESCE_MS);
  }

  function flush() {
    flushTimer = undefined;
    const parts = [...dirty];
    dirty.clear();
    for (const part of parts) runPart(part);
  }

  async function runPart(part) {
    if (running.has(part)) {
      mark([part]); // fetched again once the one in flight is done
      return;
    }
    running.add(part);
    try {
      await PARTS[part]();
      showError(part, undefined);
      const updated = TB.byId('updated');
      updated.textContent = `updated ${TB.wallTime(Date.now())}`;
      updated.dataset.atMs = String(Date.now());
    } catch (err) {
      if (err instanceof TB.ApiError && err.status === 401) signOut(`The token was refused (${err.message}). Paste a valid one.`);
      else showError(part, err);
    } finally {
      running.delete(part);
    }
  }

  TB.refreshAll = () => mark(ALL);

  /** One line per failing part, gone when that part loads again. */
  function showError(part, err) {
    const list = TB.byId('errors');
    const existing = list.querySelector(`li[data-part="${part}"]`);
    if (err === undefined) {
      if (existing) existing.remove();
    } else {
      const line = TB.el('li', { 'data-part': part }, `${part}: ${err.message || String(err)}`);
      if (existing) existing.replaceWith(line);
      else list.append(line);
    }
    list.hidden = list.children.length === 0;
  }

  // --- the live stream
  const CONNECTION_WORDS = { connecting: 'connecting…', live: 'live', reconnecting: 'reconnecting…', refused: 'refused', closed: 'closed' };

  function setConnection(s, detail) {
    const box = TB.byId('connection');
    box.dataset.state = s;
    box.className = `connection conn-${s}`;
    TB.byId('connection-text').textContent = CONNECTION_WORDS[s] || s;
    box.title = detail ? `live events: ${s} (${detail})` : `live events: ${s}`;
  }

  function onEvent(type, data) {
    const box = TB.byId('connection');
    box.dataset.events = String(Number(box.dataset.events || '0') + 1);
    if (type === 'candle' && data && typeof data.candleTime === 'number') box.dataset.lastCandle = String(data.candleTime);
    const parts = AFFECTS[type];
    if (parts) mark(parts);
  }

  // --- the orders table's controls
  function fillFilters(strategies) {
    const fillSelect = (select, values, allLabel) => {
      // Refilled only when the names change: an open drop-down is not reset under the operator.
      const signature = JSON.stringify(values);
      if (select.dataset.signature === signature) return;
      select.dataset.signature = signature;
      const current = select.value;
      TB.fill(select, TB.el('option', { value: '' }, allLabel), values.map((v) => TB.el('option', { value: v }, v)));
      select.value = values.includes(current) ? current : '';
    };
    fillSelect(TB.byId('orders-strategy'), strategies.map((s) => s.name), 'all strategies');
    fillSelect(TB.byId('orders-market'), [...new Set(strategies.flatMap((s) => s.markets || []))].sort(), 'all markets');
  }

  function wireOrderControls() {
    const setStatus = (status) => {
      state.orders.status = status;
      TB.byId('orders-open').setAttribute('aria-pressed', String(status === 'open'));
      TB.byId('orders-all').setAttribute('aria-pressed', String(status === 'all'));
      TB.byId('orders-heading-note').textContent = status === 'open' ? 'open' : 'all, newest first';
      mark(['orders']);
    };
    TB.byId('orders-open').addEventListener('click', () => setStatus('open'));
    TB.byId('orders-all').addEventListener('click', () => setStatus('all'));
    TB.byId('orders-strategy').addEventListener('change', (e) => { state.orders.strategy = e.target.value; mark(['orders']); });
    TB.byId('orders-market').addEventListener('change', (e) => { state.orders.market = e.target.value; mark(['orders']); });
    TB.byId('orders-more').addEventListener('click', async () => {
      try {
        const page = await TB.api(ordersPath(state.orders.status, PAGE, state.orders.next));
        state.orders.next = page.next;
        TB.renderOrders(page.orders, state.isOperator, true);
        TB.byId('orders-more').hidden = !page.next;
      } catch (err) {
        showError('orders', err);
      }
    });
  }

  // --- sign in and out
  function showLogin(message) {
    TB.byId('app').hidden = true;
    TB.byId('sign-out').hidden = true;
    TB.byId('login').hidden = false;
    const error = TB.byId('login-error');
    error.textContent = message || '';
    error.hidden = !message;
    TB.byId('token-input').focus();
  }

  function signOut(message) {
    if (state.stream) state.stream.close();
    clearInterval(state.poller);
    state.stream = undefined;
    TB.forgetToken();
    setConnection('closed');
    showLogin(message);
  }

  async function start() {
    let who;
    try {
      who = await TB.api('/whoami');
    } catch (err) {
      if (err instanceof TB.ApiError && (err.status === 401 || err.status === 403)) TB.forgetToken();
      showLogin(err.message);
      return;
    }
    state.isOperator = who.role === 'operator';
    document.body.dataset.role = who.role;
    TB.byId('whoami').textContent = `${who.name} (${who.role})`;
    TB.byId('login').hidden = true;
    TB.byId('sign-out').hidden = false;
    TB.byId('app').hidden = false;
    if (state.isOperator) TB.renderTradingControls();
    else TB.fill(TB.byId('trading-controls'));
    TB.byId('orders-action-col').hidden = !state.isOperator;
    state.stream = TB.openEventStream(onEvent, (s, detail) => {
      setConnection(s, detail);
      if (s === 'live') mark(ALL); // whatever happened while the stream was down
    });
    state.poller = setInterval(() => mark(ALL), POLL_MS);
    mark(ALL);
  }

  function boot() {
    TB.takeTokenFromFragment();
    TB.byId('token-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const input = TB.byId('token-input');
      const token = input.value.trim();
      input.value = ''; // not left in the page
      if (token === '') return;
      TB.setToken(token);
      start();
    });
    TB.byId('sign-out').addEventListener('click', () => signOut());
    wireOrderControls();
    if (TB.token()) start();
    else showLogin();
  }

  boot();
})();
