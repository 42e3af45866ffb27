import Redis from 'ioredis';
import { linesWithDuplicateKeys } from '../../helpers/json-duplicate-keys';
import { baseName } from '../../helpers/promql-names';
import { freePort } from '../../helpers/redis-server';
import { OPS_TEST_SECRET } from '../../helpers/secret-scan';
import { paperConfig, requireBuild, writeConfig } from '../app/daemon-process';
import { deployQueries, metricUsers } from './deploy-queries';
import { expectNoSecrets, httpGet, OPS_CONSOLE_AND_NOTIFICATIONS, OPS_GUARDRAILS, OpsDaemon, waitFor } from './ops-daemon';

/**
 * Issue 6 item 3: the daemon in paper mode (child process, real Redis) is scraped while it trades,
 * and every metric a Grafana panel, a dashboard variable or an alert rule reads must be exported:
 * no dead panel, no alert that can never fire.
 */
jest.setTimeout(60_000);

const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL']!;
const PREFIX = `tbtest-ops-scrape-${process.pid}-${Date.now()}`;
/** Series Prometheus creates itself for every target. */
const PROMETHEUS_BUILTIN = new Set(['up']);
/**
 * Every metric a panel or an alert uses must have at least one sample, even the counters of events
 * a healthy run does not cause (a strategy throwing, a failed poll): they start at 0 so queries read
 * 0 rather than "no data".
 */

interface Exposition { types: Map<string, string>; sampled: Set<string> }

/** Metric families (from # TYPE) and the families that have at least one sample. */
function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const sampled = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    else if (line !== '' && !line.startsWith('#')) {
      const name = /^[A-Za-z_:][A-Za-z0-9_:]*/.exec(line)?.[0] ?? '';
      const histograms = new Set([...types].filter(([, t]) => t === 'histogram' || t === 'summary').map(([n]) => n));
      sampled.add(baseName(name.replace(/_(created)$/, ''), histograms));
    }
  }
  return { types, sampled };
}

let daemon: OpsDaemon;
let base: string;
let config: ReturnType<typeof writeConfig>;
let redis: Redis;

/** One daemon for the three tests below (each checks one promise and fails on its own). */
beforeAll(async () => {
  requireBuild();
  redis = new Redis(REDIS_URL);
  config = writeConfig(paperConfig({
    paper: { ...(paperConfig()['paper'] as object), speed: 300 },
    // Armed so the kill-switch panels and TradebotKillSwitchNotRefreshed have series: at 300x the
    // 600 market-second timer is 2 real seconds, refreshed every 0.2 s.
    killSwitch: { enabled: true, markets: ['BTC_USDT'], timeoutSeconds: 600, refreshSeconds: 60 },
    // A drift check every 5 market minutes (a child process): the drift panels and alert have series.
    drift: { intervalMinutes: 5, windowMinutes: 5 },
    ...OPS_CONSOLE_AND_NOTIFICATIONS,
    risk: { ...(paperConfig()['risk'] as object), guardrails: OPS_GUARDRAILS },
  }));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  daemon = new OpsDaemon(['run', '--config', config.file], {
    TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: PREFIX, TRADEBOT_METRICS_PORT: String(port),
    // Paper mode does not use them: present so a daemon that printed its environment would be caught.
    TRADEBOT_API_KEY: 'ops-test-key', TRADEBOT_API_SECRET: OPS_TEST_SECRET,
  });
  const d = daemon;
  await waitFor(async () => {
    if (!d.running) throw new Error(`daemon exited before it was ready\n${d.tail()}`);
    return (await httpGet(`${base}/readyz`))?.status === 200 ? true : undefined;
  }, 30_000, () => `no /readyz 200\n${d.tail()}`);
});

afterAll(async () => {
  await daemon?.kill();
  const keys = await redis.keys(`${PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  config.cleanup();
});

test('/healthz answers 200 and /readyz 200 with the Redis, exchange and reconciliation checks passing', async () => {
  expect((await httpGet(`${base}/healthz`))?.status).toBe(200);
  const ready = await httpGet(`${base}/readyz`);
  expect(ready?.status).toBe(200);
  const body = JSON.parse(ready!.body) as { status: string; checks: Record<string, { ok: boolean }> };
  expect(body.status).toBe('ready');
  // Issue 6: "/readyz (Redis, exchange reachable, reconciled)".
  expect(Object.keys(body.checks).sort()).toEqual(['exchange', 'reconciled', 'redis']);
});

test('while it trades, the daemon exports every metric a dashboard panel, a dashboard variable or an alert uses', async () => {
  const d = daemon;
  const users = metricUsers(deployQueries());
  const needed = new Map<string, string[]>();
  let last: Exposition = { types: new Map(), sampled: new Set() };
  const missing = (): string[] => {
    const histograms = new Set([...last.types].filter(([, t]) => t === 'histogram').map(([n]) => n));
    needed.clear();
    for (const [written, where] of users) {
      const name = baseName(written, histograms);
      if (!PROMETHEUS_BUILTIN.has(name)) needed.set(name, [...(needed.get(name) ?? []), ...where]);
    }
    return [...needed.keys()].filter((n) => !last.types.has(n) || !last.sampled.has(n));
  };
  const scrape = async (): Promise<string | undefined> => {
    if (!d.running) throw new Error(`daemon exited while trading\n${d.tail()}`);
    const r = await httpGet(`${base}/metrics`);
    if (r?.status !== 200) return undefined;
    last = parseExposition(r.body);
    return r.body;
  };
  // Trading: orders went through the state machine (submitted -> open).
  await waitFor(async () => {
    const body = await scrape();
    return body !== undefined && /^tradebot_order_transitions_total\{from="submitted",to="open"\} [1-9]/m.test(body) ? true : undefined;
  }, 30_000, () => `no order reached "open"\n${d.tail()}`);
  // Then every used metric has its series (some need a reconciliation pass or a balance poll first).
  const report = (): string => missing()
    .map((n) => `  ${n}${last.types.has(n) ? ' (declared, never set)' : ' (not exported)'} <- ${[...new Set(needed.get(n))].join(', ')}`).join('\n');
  await waitFor(async () => ((await scrape()) !== undefined && missing().length === 0 ? true : undefined), 10_000,
    () => `metrics used by the dashboard/alerts that the trading daemon does not export or never sets:\n${report()}`);

  expect(needed.size).toBeGreaterThan(20);
  expect(missing()).toEqual([]);
});

test('SIGTERM: exit 0 after a clean stop; its JSON log lines have no duplicate keys and hold no secret', async () => {
  const d = daemon;
  expect(d.running).toBe(true);
  d.signal('SIGTERM');
  expect(await d.exit()).toEqual({ code: 0, signal: null });
  expect(d.lines().find((l) => l.msg === 'stopped cleanly')).toMatchObject({ clean: true });
  // JSON (stdout is a pipe, not a terminal), one value per key: JSON.parse would silently keep the last.
  expect(d.stdout.trimStart().startsWith('{')).toBe(true);
  expect(linesWithDuplicateKeys(d.stdout)).toEqual([]);
  expectNoSecrets('ops-scrape-daemon.stdout', d.stdout);
  expectNoSecrets('ops-scrape-daemon.stderr', d.stderr);
});
