import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { publishedExecutionEvents } from '../src/app/event-wiring';
import { Secret } from '../src/config/secret';
import { SystemClock } from '../src/core/clock';
import { DaemonEventBus, type DaemonEvent } from '../src/domain/daemon-event';
import { NO_EVENTS, type ExecutionEvents } from '../src/execution/journal/events';
import { buildExecution } from '../src/execution/kernel/build-execution';
import { LeaseKeeper } from '../src/execution/guards/lease-keeper';
import { ALLOW_ALL } from '../src/execution/orders/risk-port';
import { createLogger } from '../src/log/logger';
import { createMetrics } from '../src/metrics/registry';
import { Notifier } from '../src/notify/notifier';
import { MemorySendClaims } from '../src/notify/send-claims';
import { TelegramChannel } from '../src/notify/telegram-channel';
import { WebhookChannel } from '../src/notify/webhook-channel';
import { InMemoryLeaseStore } from '../src/store/memory/in-memory-lease-store';
import { InMemoryOrderStore } from '../src/store/memory/in-memory-order-store';
import type { BenchRow } from './bench-types';
import { benchIntent, InstantExchange } from './executor.bench';

/**
 * Issue #33: "a receiver that hangs does not move the close-to-accepted latency (measured side by side
 * with notifications off)". Measured here: the executor's part of close-to-accepted (an intent in ->
 * risk, rounding, journal, the instant in-process exchange -> accepted), with the executor's events
 * told on a DaemonEventBus as the daemon does (publishedExecutionEvents), plus one `fill` event emitted
 * per accepted order (the worst case: every order fills at once and is notified). Three configurations
 * in interleaved rounds, the same execution:
 *   off     - nothing subscribed to the bus (notifications.enabled: false);
 *   hanging - a Notifier subscribed, its generic webhook and its Telegram fake both real loopback HTTP
 *             servers that accept the request and never answer (timeoutMs 5000, 5 tries, queue 500,
 *             20 per minute: the defaults): every channel worker is stuck, the queues full;
 *   healthy - the same against receivers answering 200 at once (their sends share the event loop).
 * No Redis: claims happen in the channel worker, never on the event path, so they cannot move it.
 */
const WARMUP = 2000;
const ROUNDS = 10;
const PER_ROUND = 1000;

const MODES = ['off', 'hanging', 'healthy'] as const;
type Mode = (typeof MODES)[number];

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

async function receiver(hang: boolean): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (!hang) res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const origin = (s: Server): string => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

function notifier(servers: readonly [Server, Server], metrics: ReturnType<typeof createMetrics>): Notifier {
  return new Notifier({
    channels: [
      new WebhookChannel({ name: 'hook', template: 'generic', url: new Secret(new URL(`${origin(servers[0])}/hook`)), timeoutMs: 5000 }),
      new TelegramChannel({ name: 'tg', apiUrl: origin(servers[1]), botToken: new Secret('1234:bench-token-xxxxxxxxxxxxxxxxxx'), chatId: 1, timeoutMs: 5000 }),
    ],
    claims: new MemorySendClaims(), types: ['fill', 'rejection', 'trading_state'], metrics, log: createLogger({ level: 'silent' }),
    clock: new SystemClock(), maxPerMinute: 20, queueSize: 500, retry: { attempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000 }, label: 'bench',
  });
}

export async function run(): Promise<BenchRow[]> {
  const clock = new SystemClock();
  const leases = new InMemoryLeaseStore(clock);
  const store = new InMemoryOrderStore(leases, clock);
  const keeper = new LeaseKeeper({ store: leases, owner: 'bench', ttlMs: 600_000 });
  keeper.want('bench', 'BTC_USDT');
  await keeper.tick();
  const buses: Record<Mode, DaemonEventBus> = { off: new DaemonEventBus(), hanging: new DaemonEventBus(), healthy: new DaemonEventBus() };
  const published: Record<Mode, ExecutionEvents> = {
    off: publishedExecutionEvents(buses.off, clock, NO_EVENTS), hanging: publishedExecutionEvents(buses.hanging, clock, NO_EVENTS), healthy: publishedExecutionEvents(buses.healthy, clock, NO_EVENTS),
  };
  let mode: Mode = 'off';
  // The bus of the round being measured: one execution for every configuration.
  const events: ExecutionEvents = { emit: (e) => published[mode].emit(e) };
  const execution = buildExecution({ exchange: new InstantExchange(), store, leases: keeper, risk: ALLOW_ALL, clock, markets: ['BTC_USDT'], requestTimeoutMs: 1000, events });
  await execution.reconciler.runOnce();

  const hangingServers = [await receiver(true), await receiver(true)] as const;
  const healthyServers = [await receiver(false), await receiver(false)] as const;
  const hangingMetrics = createMetrics(new Registry(), { defaultMetrics: false });
  const notifiers = [notifier(hangingServers, hangingMetrics), notifier(healthyServers, createMetrics(new Registry(), { defaultMetrics: false }))];
  buses.hanging.subscribe((e) => notifiers[0]!.notify(e));
  buses.healthy.subscribe((e) => notifiers[1]!.notify(e));

  let n = 0;
  const order = async (): Promise<number> => {
    const i = n++;
    const t = performance.now();
    const result = await execution.executor.submit(benchIntent(i));
    if (result.outcome !== 'accepted') throw new Error(`unexpected outcome ${result.outcome}`);
    const fill: DaemonEvent = {
      type: 'fill', id: `fill:${i}`, atMs: Date.now(), strategy: 'bench', market: 'BTC_USDT', side: 'buy', amount: '0.1', price: '105.5', fee: '0.01', clientOrderId: `c${i}`,
    };
    buses[mode].emit(fill);
    return performance.now() - t;
  };
  const samples: Record<Mode, number[]> = { off: [], hanging: [], healthy: [] };
  try {
    for (const m of MODES) {
      mode = m;
      for (let i = 0; i < WARMUP; i++) await order();
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const m of MODES) {
        mode = m;
        for (let i = 0; i < PER_ROUND; i++) samples[m].push(await order());
      }
    }
  } finally {
    await Promise.all(notifiers.map((x) => x.close(0)));
    for (const s of [...hangingServers, ...healthyServers]) {
      s.closeAllConnections();
      s.close();
    }
  }
  const us = (ms: number): number => Math.round(ms * 1000);
  const rows: BenchRow[] = [];
  const stats: Record<Mode, { p50: number; p99: number }> = { off: { p50: 0, p99: 0 }, hanging: { p50: 0, p99: 0 }, healthy: { p50: 0, p99: 0 } };
  for (const m of MODES) {
    const sorted = [...samples[m]].sort((a, b) => a - b);
    stats[m] = { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
    rows.push({ name: `intent -> accepted + fill event told, notifications ${m}, p50`, value: us(stats[m].p50), unit: 'µs' });
    rows.push({ name: `intent -> accepted + fill event told, notifications ${m}, p99`, value: us(stats[m].p99), unit: 'µs', note: `${samples[m].length} orders in ${ROUNDS} interleaved rounds` });
  }
  const dropped = (await hangingMetrics.notificationsDropped.get()).values.reduce((a, v) => a + v.value, 0);
  rows.push({ name: 'hanging / off, p50', value: Number((stats.hanging.p50 / stats.off.p50).toFixed(2)), unit: 'x' });
  rows.push({ name: 'hanging / off, p99', value: Number((stats.hanging.p99 / stats.off.p99).toFixed(2)), unit: 'x', note: 'goal: ~1 (no move)' });
  rows.push({ name: 'messages dropped by the hanging channels (queue full, rate limit)', value: dropped, unit: 'messages', note: 'proves the hanging path was exercised' });
  return rows;
}
