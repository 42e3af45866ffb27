/* global window, fetch, TextDecoder, AbortController */
// The daemon's live events (GET /api/v1/events, Server-Sent Events). EventSource cannot send an
// Authorization header, and the token must not go into the URL, so the stream is read with fetch()
// and its frames are parsed here. When it ends or fails it reconnects after a growing pause.
(function () {
  'use strict';
  const TB = (window.TB = window.TB || {});

  /**
   * Splits SSE text into events: frames end at a blank line; `event:` names one, `data:` lines
   * join with newlines, `id:` is remembered for Last-Event-ID, lines starting with ':' are comments
   * (keep-alives). Returns the text left over (an unfinished frame).
   */
  function parseFrames(buffer, onFrame) {
    // A CR at the very end may be the first half of a CRLF split across chunks: kept for the next one.
    const held = buffer.endsWith('\r') ? '\r' : '';
    const text = (held ? buffer.slice(0, -1) : buffer).replace(/\r\n?/g, '\n');
    let start = 0;
    let end;
    while ((end = text.indexOf('\n\n', start)) >= 0) {
      const frame = { event: 'message', data: [], id: undefined };
      for (const line of text.slice(start, end).split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') frame.event = value;
        else if (field === 'data') frame.data.push(value);
        else if (field === 'id') frame.id = value;
      }
      if (frame.data.length > 0) onFrame(frame.event, frame.data.join('\n'), frame.id);
      start = end + 2;
    }
    return text.slice(start) + held;
  }
  TB.parseSseFrames = parseFrames;

  /**
   * Keeps a stream open. `onEvent(type, data)` gets each event with its data parsed as JSON;
   * `onState(state, detail)` hears 'connecting' | 'live' | 'reconnecting' | 'refused'. A 401/403
   * is not retried (the token is wrong: retrying would only count failures against this address).
   */
  TB.openEventStream = function openEventStream(onEvent, onState) {
    let stopped = false;
    let controller;
    let lastId;
    let failures = 0;
    let timer;

    async function connect() {
      controller = new AbortController();
      onState(failures === 0 ? 'connecting' : 'reconnecting');
      try {
        const headers = { Accept: 'text/event-stream', Authorization: `Bearer ${TB.token() || ''}` };
        if (lastId !== undefined) headers['Last-Event-ID'] = lastId;
        const response = await fetch('/api/v1/events', { headers, cache: 'no-store', credentials: 'omit', signal: controller.signal });
        if (response.status === 401 || response.status === 403) {
          onState('refused', (await TB.errorOf(response)).message);
          return;
        }
        if (!response.ok || !response.body) throw await TB.errorOf(response);
        failures = 0;
        onState('live');
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer = parseFrames(buffer + decoder.decode(value, { stream: true }), (type, data, id) => {
            if (id !== undefined) lastId = id;
            let parsed;
            try {
              parsed = JSON.parse(data);
            } catch {
              parsed = data;
            }
            onEvent(type, parsed);
          });
        }
      } catch (err) {
        if (stopped) return;
        onState('reconnecting', err && err.message);
      }
      if (stopped) return;
      // 1 s, 2 s, 4 s … at most 30 s between attempts; a stream that opened resets the count.
      failures += 1;
      const delay = Math.min(30_000, 1000 * 2 ** Math.min(failures - 1, 5));
      onState('reconnecting');
      timer = setTimeout(connect, delay);
    }

    connect();
    return {
      close() {
        stopped = true;
        clearTimeout(timer);
        if (controller) controller.abort();
      },
    };
  };
})();
