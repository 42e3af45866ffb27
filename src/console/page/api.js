/* global window, sessionStorage, history, location, fetch */
// The console API: where the token lives and how every call carries it. The token reaches the page
// in the URL's fragment (#token=…), which browsers never send to the server; it is moved to
// sessionStorage (this tab only, gone when it closes) and the fragment is removed from the address
// bar at once, so it is not left in the history, a bookmark or a screenshot.
(function () {
  'use strict';
  const TB = (window.TB = window.TB || {});
  const KEY = 'tradebot.console.token';

  /** Called first thing on load: takes a token out of the fragment, if there is one. */
  TB.takeTokenFromFragment = function takeTokenFromFragment() {
    const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (match) {
      sessionStorage.setItem(KEY, decodeURIComponent(match[1]));
      history.replaceState(null, '', location.pathname + location.search);
    }
  };

  TB.token = () => sessionStorage.getItem(KEY);
  TB.setToken = (token) => sessionStorage.setItem(KEY, token);
  TB.forgetToken = () => sessionStorage.removeItem(KEY);

  /** An API answer that was not 2xx: its status and the `error` text the server gave. */
  class ApiError extends Error {
    constructor(status, message, code) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }
  TB.ApiError = ApiError;

  /** What a failed answer says, in words (the server's `error` field when it sent one). */
  async function errorOf(response) {
    let text = '';
    let code;
    try {
      const body = await response.json();
      text = typeof body.error === 'string' ? body.error : typeof body.message === 'string' ? body.message : '';
      code = typeof body.code === 'string' ? body.code : undefined;
    } catch {
      // not JSON: the status line says enough
    }
    const fallback = { 401: 'the token was refused', 403: 'this token may only view', 429: 'too many failed attempts: wait a minute' }[response.status];
    return new ApiError(response.status, `${response.status} ${text || fallback || response.statusText || 'error'}`, code);
  }

  /** GET or POST one endpoint (path under /api/v1) with the token; resolves with the JSON answer. */
  TB.api = async function api(path, options) {
    const opts = options || {};
    const headers = { Accept: 'application/json', Authorization: `Bearer ${TB.token() || ''}` };
    const init = { method: opts.method || 'GET', headers, cache: 'no-store', credentials: 'omit' };
    if (opts.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(opts.body);
    }
    let response;
    try {
      response = await fetch(`/api/v1${path}`, init);
    } catch (err) {
      throw new ApiError(0, `the daemon did not answer (${err && err.message ? err.message : 'network error'})`);
    }
    if (!response.ok) throw await errorOf(response);
    return response.json();
  };

  TB.errorOf = errorOf;
})();
