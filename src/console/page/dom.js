/* global window, document */
// DOM building and value formatting for the console page. Everything the API says goes into the
// page through textContent or attributes, never through innerHTML: a strategy name or an order's
// reason is data, not markup.
(function () {
  'use strict';
  const TB = (window.TB = window.TB || {});

  /**
   * el('td', { class: 'num', title: '…' }, 'text', childNode): an element with attributes and
   * children (strings become text nodes). Attribute names are ours; values may be data.
   */
  TB.el = function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'class') node.className = value;
      else if (name === 'onclick') node.addEventListener('click', value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
    }
    return node;
  };

  /** Replaces an element's children. */
  TB.fill = function fill(node, ...children) {
    node.replaceChildren();
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
    }
  };

  const asNodes = (children) => children.flat()
    .filter((c) => c !== undefined && c !== null && c !== false && c !== '')
    .map((c) => (typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c));

  function syncAttributes(target, source) {
    for (const { name } of [...target.attributes]) if (!source.hasAttribute(name)) target.removeAttribute(name);
    for (const { name, value } of source.attributes) if (target.getAttribute(name) !== value) target.setAttribute(name, value);
  }

  /**
   * Makes `parent`'s children look like `children`, keeping the nodes that did not change. The page
   * redraws several times a second while candles pass: a button replaced between press and release
   * would lose the operator's click. Buttons are kept or replaced whole (their click handler belongs
   * to what they show); other elements with the same tag are updated in place, `depth` levels down.
   */
  TB.patch = function patch(parent, children, depth) {
    const levels = depth === undefined ? 3 : depth;
    const next = asNodes(children);
    const old = [...parent.childNodes];
    next.forEach((node, i) => {
      const current = old[i];
      if (current === undefined) parent.append(node);
      else if (current.isEqualNode(node)) return;
      else if (levels > 0 && current.nodeType === 1 && node.nodeType === 1 && current.tagName === node.tagName && current.tagName !== 'BUTTON') {
        syncAttributes(current, node);
        patch(current, [...node.childNodes], levels - 1);
      } else current.replaceWith(node);
    });
    for (let i = next.length; i < old.length; i++) old[i].remove();
  };

  TB.byId = (id) => document.getElementById(id);

  const pad = (n) => String(n).padStart(2, '0');

  /**
   * Market time (the simulator's clock in paper mode, the venue's in live mode) in UTC. Candle times
   * come in Unix seconds and the rest in ms: a value below 1e11 is seconds (1e11 ms is 1973).
   */
  TB.marketTime = function marketTime(t, withSeconds) {
    if (typeof t !== 'number' || !Number.isFinite(t)) return '-';
    const d = new Date(t < 1e11 ? t * 1000 : t);
    const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${withSeconds ? `:${pad(d.getUTCSeconds())}` : ''}`;
    return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${time}`;
  };

  /** Wall-clock time in the browser's zone (audit entries, "updated"). */
  TB.wallTime = function wallTime(ms) {
    if (typeof ms !== 'number' || !Number.isFinite(ms)) return '-';
    const d = new Date(ms);
    const today = new Date();
    const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
    return d.toDateString() === today.toDateString() ? time : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
  };

  /** "3 s", "4 min", "2 h" */
  TB.duration = function duration(ms) {
    if (typeof ms !== 'number' || !Number.isFinite(ms)) return '-';
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 120) return `${s} s`;
    if (s < 7200) return `${Math.round(s / 60)} min`;
    return `${Math.round(s / 3600)} h`;
  };

  /**
   * A decimal string rounded for the eye (money to 2 places). The exact value stays in the string the
   * API sent; callers put it in a title so nothing is lost.
   */
  TB.money = function money(value) {
    if (value === undefined || value === null || value === '') return '-';
    const n = Number(value);
    if (!Number.isFinite(n)) return String(value);
    return n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  };

  /** Amounts and prices: as sent, trailing zeros of the fraction trimmed. */
  TB.decimal = function decimal(value) {
    if (value === undefined || value === null || value === '') return '-';
    const s = String(value);
    return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
  };

  /** 'pos' / 'neg' / '' for colouring a signed decimal string. */
  TB.sign = function sign(value) {
    const n = Number(value);
    if (!Number.isFinite(n) || n === 0) return '';
    return n > 0 ? 'pos' : 'neg';
  };

  /** A version hash is long; its first 10 characters name it on screen (the whole one in the title). */
  TB.shortVersion = (v) => (typeof v === 'string' && v.length > 12 ? v.slice(0, 10) : String(v ?? '-'));
})();
