import { Secret } from '../../../src/config/secret';
import { componentLogger, createLogger, REDACT_PATHS, withRequestId } from '../../../src/log/logger';
import { scrub, SECRET_KEYS } from '../../../src/log/scrub';
import { CaptureStream } from './capture';

const SECRET = 'TOPSECRET-7f3a9c';

/** Builds an object holding SECRET at the location a redact path names (wildcards filled in). */
function objectAt(path: string): Record<string, unknown> {
  const parts = path.match(/[^.[\]"]+/g) ?? [];
  const filled = parts.map((p, i) => (p === '*' ? `level${i}` : p));
  const root: Record<string, unknown> = {};
  let node = root;
  filled.forEach((key, i) => {
    if (i === filled.length - 1) node[key] = SECRET;
    else node = (node[key] = {}) as Record<string, unknown>;
  });
  return root;
}

function capture(): { stream: CaptureStream; log: ReturnType<typeof createLogger> } {
  const stream = new CaptureStream();
  return { stream, log: createLogger({ level: 'trace', destination: stream }) };
}

describe('createLogger', () => {
  it('writes structured JSON with level names and the component of a child', () => {
    const { stream, log } = capture();
    componentLogger(log, 'executor').info({ market: 'BTC_USDT' }, 'order submitted');
    const [line] = stream.lines();
    expect(line).toMatchObject({ level: 'info', name: 'tradebot', component: 'executor', market: 'BTC_USDT', msg: 'order submitted' });
    expect(typeof line?.['time']).toBe('string');
  });

  it('respects the level', () => {
    const stream = new CaptureStream();
    const log = createLogger({ level: 'warn', destination: stream });
    log.info('hidden');
    log.warn('shown');
    expect(stream.lines().map((l) => l['msg'])).toEqual(['shown']);
  });

  it('tags request lines with a reqId, given or generated', () => {
    const { stream, log } = capture();
    withRequestId(log, 'abc-123').info('one');
    withRequestId(log).info('two');
    const [one, two] = stream.lines();
    expect(one?.['reqId']).toBe('abc-123');
    expect(typeof two?.['reqId']).toBe('string');
    expect(two?.['reqId']).not.toBe('abc-123');
  });

  it('adds base fields', () => {
    const stream = new CaptureStream();
    createLogger({ destination: stream, base: { mode: 'paper' } }).info('x');
    expect(stream.lines()[0]).toMatchObject({ mode: 'paper' });
  });

  it('writes pretty text when asked', () => {
    const stream = new CaptureStream();
    const log = createLogger({ pretty: true, destination: stream });
    log.info({ apiSecret: SECRET }, 'pretty line');
    log.flush();
    return new Promise<void>((resolve) => setImmediate(() => {
      expect(stream.text()).toContain('pretty line');
      expect(stream.text()).not.toContain(SECRET);
      expect(() => JSON.parse(stream.text().split('\n')[0] ?? '')).toThrow();
      resolve();
    }));
  });

  it('writes each event on one line on a terminal, fields and nested objects inline, secrets still redacted', () => {
    const stream = new CaptureStream();
    const log = createLogger({ pretty: true, destination: stream });
    const child = log.child({ component: 'strategy', strategy: 'bb' });
    child.info({ market: 'BTC_USDT', guest: { band: { upper: 1, lower: 2 }, note: 'x' }, apiSecret: SECRET }, 'first event');
    child.warn({ market: 'ETH_USDT', nested: { token: SECRET } }, 'second event');
    child.error({ err: new Error('boom') }, 'third event');
    log.flush();
    return new Promise<void>((resolve, reject) => setImmediate(() => {
      try {
        const lines = stream.text().split('\n').filter((l) => l.length > 0);
        expect(lines[0]).toMatch(/INFO: first event \{"component":"strategy","strategy":"bb","market":"BTC_USDT","guest":\{"band":\{"upper":1,"lower":2\},"note":"x"\},"apiSecret":"\[REDACTED\]"\}$/);
        expect(lines[1]).toMatch(/WARN: second event \{.*"market":"ETH_USDT".*\}$/);
        // An error inline too: its type, message and where it was thrown, not the whole stack.
        expect(lines).toHaveLength(3);
        expect(lines[2]).toMatch(/ERROR: third event \{"component":"strategy","strategy":"bb","error":"Error: boom at [^"]*logger\.test\.ts:\d+:\d+\)?"\}$/);
        expect(stream.text()).not.toContain(SECRET);
        resolve();
      } catch (err) {
        reject(err as Error);
      }
    }));
  });
});

describe('redaction', () => {
  it.each(REDACT_PATHS.map((p) => [p]))('hides a value at %s', (path) => {
    const { stream, log } = capture();
    log.info(objectAt(path), 'line');
    log.child(objectAt(path)).info('child line');
    expect(stream.text()).toContain('[REDACTED]');
    expect(stream.text()).not.toContain(SECRET);
  });

  it.each(SECRET_KEYS.flatMap((k) => [k, k.toUpperCase()]).flatMap((k) => [
    [`${k}`], [`a.${k}`], [`a.b.${k}`], [`a.b.c.${k}`], [`a.b.c.d.headers.${k}`],
  ]))('hides a nested value at %s', (path) => {
    const { stream, log } = capture();
    log.info(objectAt(path), 'line');
    componentLogger(log, 'x', objectAt(path)).info('component line');
    expect(stream.text()).toContain('[REDACTED]');
    expect(stream.text()).not.toContain(SECRET);
  });

  it('hides secrets in arrays, error causes and nested errors', () => {
    const { stream, log } = capture();
    const cause = Object.assign(new Error('inner'), { context: { signature: SECRET } });
    const err = new Error('outer', { cause });
    log.error({ err, list: [{ password: SECRET }], nested: { error: Object.assign(new Error('x'), { apiKey: SECRET }) } }, 'failed');
    expect(stream.text()).toContain('outer');
    expect(stream.text()).not.toContain(SECRET);
  });

  it('scrub leaves objects without secrets untouched (no copy) and never mutates', () => {
    const clean = { a: { b: [1, 2, { c: 'x' }] } };
    expect(scrub(clean)).toBe(clean);
    const dirty = { a: { secret: SECRET }, b: { keep: 1 } };
    const out = scrub(dirty);
    expect(out).toEqual({ a: { secret: '[REDACTED]' }, b: { keep: 1 } });
    expect(out.b).toBe(dirty.b);
    expect(dirty.a.secret).toBe(SECRET);
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic['self'] = cyclic;
    expect(() => scrub(cyclic)).not.toThrow();
  });

  it('hides exchange headers in a request log, an error context and a child binding', () => {
    const { stream, log } = capture();
    const headers = { 'X-TXC-APIKEY': SECRET, 'X-TXC-PAYLOAD': SECRET, 'X-TXC-SIGNATURE': SECRET, 'Content-Type': 'application/json' };
    log.debug({ req: { method: 'POST', url: '/api/v4/orders', headers } }, 'request');
    log.debug({ headers }, 'request');
    log.debug({ request: { options: { headers } } }, 'request');
    const err = Object.assign(new Error('boom'), { context: { headers, signature: SECRET, apiSecret: SECRET } });
    log.error({ err }, 'failed');
    log.error(err, 'failed again');
    log.child({ headers }).info('bound');
    expect(stream.text()).toContain('Content-Type');
    expect(stream.text()).not.toContain(SECRET);
  });

  it('prints Secret wrappers as redacted wherever they sit', () => {
    const { stream, log } = capture();
    const s = new Secret(SECRET);
    log.info({ config: { exchange: { key: s } }, value: s, list: [s] }, `message with ${s}`);
    expect(stream.text()).not.toContain(SECRET);
  });

  it('keeps non-secret fields intact', () => {
    const { stream, log } = capture();
    log.info({ market: 'BTC_USDT', order: { clientOrderId: 'tb-1', amount: '0.01' } }, 'ok');
    expect(stream.lines()[0]).toMatchObject({ market: 'BTC_USDT', order: { clientOrderId: 'tb-1', amount: '0.01' } });
  });
});
