import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Registry } from 'prom-client';
import type { DaemonContext } from '../../../src/app/daemon-context';
import { parseConfig } from '../../../src/config/load';
import { SystemClock } from '../../../src/core/clock';
import { DaemonEventBus, type DaemonEvent } from '../../../src/domain/daemon-event';
import { createLogger, type Logger } from '../../../src/log/logger';
import { createMetrics, type Metrics } from '../../../src/metrics/registry';

/** One request a fake receiver got. */
export interface Received {
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly atMs: number;
}

export type Answer = { readonly status: number; readonly headers?: Record<string, string>; readonly body?: unknown } | 'hang';

/**
 * A real HTTP server on loopback standing in for a webhook receiver or the Telegram Bot API: it
 * records every request and answers what `answer` says (n = 1 for the first request), or never
 * answers ('hang').
 */
export class FakeReceiver {
  readonly received: Received[] = [];
  answer: (req: Received, n: number) => Answer = () => ({ status: 200, body: { ok: true } });
  private readonly server: Server;

  private constructor() {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  static async start(): Promise<FakeReceiver> {
    const r = new FakeReceiver();
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    return r;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  ids(): string[] {
    return this.received.map((r) => String(r.body['id'] ?? r.body['text']));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: Received = { path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>, atMs: Date.now() };
      this.received.push(received);
      const answer = this.answer(received, this.received.length);
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body ?? {}));
    });
  }
}

/** Polls `check` every 20 ms (at most 15 s); no timing is asserted. */
export async function until(check: () => boolean | Promise<boolean>, what = 'condition'): Promise<void> {
  for (let i = 0; i < 750; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

type NotifyMetric = 'notificationsSent' | 'notificationsFailed' | 'notificationsRetried' | 'notificationsDropped' | 'notificationsDeduplicated';

/** Sum of a notification counter over the series matching `labels`. */
export async function counter(metrics: Metrics, key: NotifyMetric, labels: Record<string, string> = {}): Promise<number> {
  const values = (await metrics[key].get()).values;
  return values.filter((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x)).reduce((a, v) => a + v.value, 0);
}

/** A logger whose lines are kept (JSON text) for the secret checks. */
export function capturedLogger(): { log: Logger; text: () => string } {
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', destination: new Writable({ write(chunk, _e, done) { lines.push(String(chunk)); done(); } }) });
  return { log, text: () => lines.join('') };
}

/** The parts of a daemon startNotifications uses, built as build-app.ts builds them. */
export function daemonContext(notifications: unknown, baseDir: string, log: Logger): DaemonContext & { registry: Registry } {
  const config = parseConfig({
    mode: 'paper',
    paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '100' } },
    strategies: { enabled: [{ name: 'sma-cross' }] },
    notifications,
  }, {});
  const registry = new Registry();
  const wallClock = new SystemClock();
  return {
    registry, config, baseDir, env: {}, configFile: undefined, log, metrics: createMetrics(registry, { wallClock }), wallClock, marketNow: wallClock,
    onRedisUp: () => undefined, closers: [], schedulers: [], fail: (e) => { throw e; }, events: new DaemonEventBus(),
  };
}

export const fillEvent = (n: number): DaemonEvent => ({
  type: 'fill', id: `fill:tb-it-${n}:0.01`, atMs: Date.now(), strategy: 'sma-cross', market: 'BTC_USDT', side: 'buy', amount: '0.01', price: `${47200 + n}.5`, fee: '0.47', clientOrderId: `tb-it-${n}`,
});

export const haltEvent = (n: number): DaemonEvent => ({
  type: 'trading_state', id: `state:e1:${n}`, atMs: Date.now(), state: 'halted', previous: 'active', reason: `operator: console alice: drill ${n}`,
});
