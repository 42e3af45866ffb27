import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import Redis from 'ioredis';
import { freePort } from '../../helpers/redis-server';
import { OPS_TEST_SECRET } from '../../helpers/secret-scan';
import { paperConfig, requireBuild, runCli, writeConfig } from '../app/daemon-process';
import { expectNoSecrets, httpGet, parseLines, ROOT, waitFor } from './ops-daemon';

/**
 * Issue 6 item 4: the daemon under pm2 (the npm package, `node_modules/.bin/pm2`) started from
 * ecosystem.config.js, stopped with `pm2 stop`: a clean exit (code 0, the graceful shutdown logged)
 * with nothing lost (no journal entry left between "sent" and "answer recorded").
 *
 * pm2 runs with its own PM2_HOME in a temp dir, passed explicitly to EVERY pm2 call: a user's pm2
 * (~/.pm2, its daemon and its apps) is never touched. afterAll always kills that private daemon.
 */
jest.setTimeout(120_000);

const PM2 = path.join(ROOT, 'node_modules', '.bin', 'pm2');
const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL']!;
const PREFIX = `tbtest-ops-pm2-${process.pid}-${Date.now()}`;

let pm2Home: string;
let config: ReturnType<typeof writeConfig>;
let env: NodeJS.ProcessEnv;
let redis: Redis;

interface Pm2Process { name: string; pid: number; pm2_env: { status: string; exit_code?: number; restart_time: number } }

function pm2(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  if (!pm2Home?.includes('tb-pm2-')) throw new Error('refusing to run pm2 without the private PM2_HOME');
  const r = spawnSync(PM2, args, { cwd: ROOT, env: pm2Env(), encoding: 'utf8', timeout: 40_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The environment pm2 (and so the daemon) gets: the test's, without the run's own Redis URL variable. */
function pm2Env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, ...env, ...extra, PM2_HOME: pm2Home };
  delete out['TRADEBOT_TEST_REDIS_URL'];
  return out;
}

function jlist(): Pm2Process[] {
  const r = pm2('jlist');
  if (r.code !== 0) throw new Error(`pm2 jlist failed: ${r.stderr}`);
  return JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as Pm2Process[];
}

const logFile = (name: string): string => {
  const file = path.join(pm2Home, name);
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};

interface JournalRow { clientOrderId: string; status: string }
function journal(): JournalRow[] {
  const r = runCli(['orders', '--json', '--limit', '1000', '--config', config.file], { ...env, TRADEBOT_REDIS_URL_FILE: undefined, TRADEBOT_REDIS_URL: REDIS_URL });
  if (r.code !== 0) throw new Error(`tradebot orders failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as JournalRow[];
}

beforeAll(async () => {
  requireBuild();
  pm2Home = mkdtempSync('/tmp/tb-pm2-'); // short: pm2's unix socket paths must stay under 108 bytes
  redis = new Redis(REDIS_URL);
  config = writeConfig(paperConfig({ paper: { ...(paperConfig()['paper'] as object), speed: 300 } }));
  const secretFile = path.join(pm2Home, 'api-secret');
  writeFileSync(secretFile, `${OPS_TEST_SECRET}\n`, { mode: 0o600 });
  // The Redis URL (it may hold a password) from a file too: pm2 keeps the environment, not the file.
  const redisUrlFile = path.join(pm2Home, 'redis-url');
  writeFileSync(redisUrlFile, `${REDIS_URL}\n`, { mode: 0o600 });
  env = {
    // ecosystem.config.js reads TRADEBOT_CONFIG when pm2 loads it; the rest reaches the daemon's environment.
    TRADEBOT_CONFIG: config.file,
    TRADEBOT_METRICS_PORT: String(await freePort()),
    TRADEBOT_REDIS_URL_FILE: redisUrlFile,
    TRADEBOT_REDIS_PREFIX: PREFIX,
    // Unused in paper mode, given the way docs/operations.md says to run pm2: the secret in a file,
    // never in the environment, because pm2 keeps an app's environment in its process list
    // (`pm2 jlist`, `pm2 show`, `pm2 env`, and `pm2 save` writes it to dump.pm2). The secret scan of
    // this test's pm2 output caught exactly that with TRADEBOT_API_SECRET.
    TRADEBOT_API_KEY: 'ops-test-key',
    TRADEBOT_API_SECRET_FILE: secretFile,
  };
});

afterAll(async () => {
  if (pm2Home !== undefined) {
    pm2('kill');
    rmSync(pm2Home, { recursive: true, force: true });
  }
  const keys = [...await redis.keys(`${PREFIX}:*`), ...await redis.keys(`${PREFIX}-queue:*`)];
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  config?.cleanup();
});

test('pm2 start ecosystem.config.js -> online and trading; pm2 stop -> exit code 0, graceful shutdown logged, nothing left in flight', async () => {
  const base = `http://127.0.0.1:${env['TRADEBOT_METRICS_PORT']}`;
  const started = pm2('start', 'ecosystem.config.js');
  expect([started.code, started.stderr]).toEqual([0, '']);
  const out = () => logFile('logs/tradebot-out.log');

  // wait_ready: pm2 start returned after the daemon's process.send('ready'); it stays online.
  await waitFor(async () => ((await httpGet(`${base}/readyz`))?.status === 200 ? true : undefined), 30_000,
    () => `no /readyz 200 from the pm2-managed daemon\n${out().split('\n').slice(-10).join('\n')}`);
  const listed = pm2('jlist').stdout;
  expect(listed).not.toContain(OPS_TEST_SECRET);
  expect(listed).not.toContain(REDIS_URL);
  const [app] = jlist();
  expect(app?.name).toBe('tradebot');
  expect(app?.pm2_env.status).toBe('online');

  // Some orders exist and reached the exchange.
  await waitFor(async () => {
    const body = (await httpGet(`${base}/metrics`))?.body ?? '';
    const open = /^tradebot_order_transitions_total\{from="submitted",to="open"\} (\d+)/m.exec(body);
    return Number(open?.[1] ?? 0) >= 3 ? true : undefined;
  }, 30_000, () => `fewer than 3 orders opened\n${out().split('\n').slice(-10).join('\n')}`);

  const stopped = pm2('stop', 'tradebot');
  expect(stopped.code).toBe(0);
  const [after] = jlist();
  expect(after?.pm2_env).toMatchObject({ status: 'stopped', exit_code: 0, restart_time: 0 });
  expect(logFile('pm2.log')).toMatch(/App \[tradebot:0\] exited with code \[0\] via signal \[SIGINT\]/);

  const lines = parseLines(out());
  expect(lines.find((l) => l.msg.startsWith('shutting down'))).toMatchObject({ reason: 'SIGINT' });
  // "stopped cleanly" is logged only when the executor drained every in-flight submission in time.
  expect(lines.find((l) => l.msg === 'stopped cleanly')).toMatchObject({ clean: true });
  expect(lines.filter((l) => l.msg.startsWith('in-flight submissions did not finish'))).toEqual([]);
  // pm2's tree kill sent SIGINT to the guests too: a stop, not a strategy failure (issue #32).
  const stop = lines.slice(lines.findIndex((l) => l.msg.startsWith('shutting down')));
  expect(stop.filter((l) => l.level === 'error' || l.level === 'fatal' || /paused|restarting|thread ended/.test(l.msg))).toEqual([]);

  // Nothing lost: every order sent has its answer in the journal (none left submitted, pending, unknown).
  const rows = journal();
  expect(rows.length).toBeGreaterThanOrEqual(3);
  expect(rows.filter((r) => ['submitted', 'pending', 'unknown'].includes(r.status))).toEqual([]);

  expectNoSecrets('ops-pm2-tradebot-out.log', out());
  expectNoSecrets('ops-pm2-tradebot-error.log', logFile('logs/tradebot-error.log'));
  expectNoSecrets('ops-pm2.log', logFile('pm2.log'));
});

const base = (): string => `http://127.0.0.1:${env['TRADEBOT_METRICS_PORT']}`;
const ready = async (): Promise<boolean> => (await httpGet(`${base()}/readyz`))?.status === 200;
const outLines = () => parseLines(logFile('logs/tradebot-out.log'));

/** Waits until pm2 lists the app online with a pid other than `notPid`, and it answers /readyz. */
async function waitOnline(notPid: number, what: string): Promise<Pm2Process> {
  return waitFor(async () => {
    const [app] = jlist();
    if (app === undefined || app.pm2_env.status !== 'online' || app.pid === notPid || app.pid === 0) return undefined;
    return (await ready()) ? app : undefined;
  }, 45_000, () => `${what}: not back online\n${JSON.stringify(jlist().map((a) => [a.pid, a.pm2_env.status, a.pm2_env.restart_time]))}\n${logFile('pm2.log').split('\n').slice(-8).join('\n')}`);
}

test('kill -9 (what the kernel OOM killer sends) and SIGABRT (how V8 ends on a heap OOM): pm2 restarts the daemon, back ready, in its stored trading state', async () => {
  expect(pm2('start', 'tradebot').code).toBe(0);
  const [first] = jlist();
  expect(first?.pm2_env.status).toBe('online');
  await waitFor(async () => ((await ready()) ? true : undefined), 30_000, () => 'not ready after pm2 start');
  // An operator paused it: that must survive the crash.
  expect(runCli(['pause', '--config', config.file, '--reason', 'pm2 test'], { ...env, TRADEBOT_REDIS_URL_FILE: undefined, TRADEBOT_REDIS_URL: REDIS_URL }).code).toBe(0);
  await waitFor(() => (outLines().some((l) => l.msg === 'trading state changed' && l['state'] === 'halted') ? true : undefined), 10_000, () => 'pause not applied');

  let pid = first!.pid;
  let restarts = first!.pm2_env.restart_time;
  for (const signal of ['SIGKILL', 'SIGABRT'] as const) {
    const startsBefore = outLines().filter((l) => l.msg === 'trading state at start').length;
    process.kill(pid, signal);
    const back = await waitOnline(pid, signal);
    expect(back.pm2_env.restart_time).toBe(restarts + 1);
    expect(logFile('pm2.log')).toContain(`via signal [${signal}]`);
    const starts = outLines().filter((l) => l.msg === 'trading state at start');
    expect(starts.length).toBe(startsBefore + 1);
    expect(starts[starts.length - 1]).toMatchObject({ state: 'halted', stored: 'halted' });
    pid = back.pid;
    restarts = back.pm2_env.restart_time;
  }
  expect(runCli(['resume', '--config', config.file], { ...env, TRADEBOT_REDIS_URL_FILE: undefined, TRADEBOT_REDIS_URL: REDIS_URL }).code).toBe(0);
});

test('pm2 reload (fork mode): the old process stops gracefully (exit 0, nothing in flight), the new one is ready when reload returns', async () => {
  const [before] = jlist();
  expect(before?.pm2_env.status).toBe('online');
  const cleanBefore = outLines().filter((l) => l.msg === 'stopped cleanly').length;
  const reloaded = pm2('reload', 'tradebot');
  expect(reloaded.code).toBe(0);
  // wait_ready: reload returns once the NEW process sent 'ready' (start-up reconciliation done).
  expect(await ready()).toBe(true);
  const [after] = jlist();
  expect(after?.pid).not.toBe(before?.pid);
  expect(after?.pm2_env.status).toBe('online');
  expect(after?.pm2_env.restart_time).toBe(before!.pm2_env.restart_time + 1);
  await waitFor(() => (outLines().filter((l) => l.msg === 'stopped cleanly').length > cleanBefore ? true : undefined), 20_000, () => 'old process did not log a clean stop');
  expect(outLines().filter((l) => l.msg === 'stopped cleanly').slice(-1)[0]).toMatchObject({ clean: true });
  expect(journal().filter((r) => ['submitted', 'pending', 'unknown'].includes(r.status))).toEqual([]);
});

test('a bad config exits 78 and pm2 does not restart it (no crash loop)', async () => {
  expect(pm2('delete', 'tradebot').code).toBe(0);
  const logBefore = logFile('pm2.log').length;
  const bad = writeConfig({ mode: 'paper', bogusKey: 1 });
  try {
    const started = spawnSync(PM2, ['start', 'ecosystem.config.js'], { cwd: ROOT, env: pm2Env({ TRADEBOT_CONFIG: bad.file }), encoding: 'utf8', timeout: 40_000 });
    expect(started.status).toBe(0);
    await waitFor(() => (jlist()[0]?.pm2_env.exit_code === 78 ? true : undefined), 20_000, () => JSON.stringify(jlist()));
    // Longer than the first back-off delays (1 s, 1.5 s, 2.25 s): still not restarted.
    await new Promise((r) => setTimeout(r, 6000));
    const [app] = jlist();
    expect(app?.pm2_env).toMatchObject({ exit_code: 78, restart_time: 0 });
    expect(app?.pid).toBe(0);
    // pm2 7 shows "waiting restart" here (it sets the status before it checks stop_exit_codes) but
    // never starts it again: one start, one exit in its log.
    expect(logFile('pm2.log').slice(logBefore).match(/App \[tradebot:\d+\] starting in/g)?.length).toBe(1);
    expect(logFile('logs/tradebot-error.log')).toMatch(/bogusKey: unknown setting/);
  } finally {
    bad.cleanup();
  }
});

test('the sweep workers\' process file (deploy/pm2/sweep-worker.config.js), started from outside the checkout: online and ready; pm2 stop drains and exits 0', async () => {
  const urlFile = path.join(pm2Home, 'queue-redis-url');
  writeFileSync(urlFile, `${REDIS_URL}\n`, { mode: 0o600 });
  const workerEnv = pm2Env({ TRADEBOT_QUEUE_REDIS_URL_FILE: urlFile, TRADEBOT_QUEUE_PREFIX: `${PREFIX}-queue` });
  const run = (...args: string[]) => spawnSync(PM2, args, { cwd: pm2Home, env: workerEnv, encoding: 'utf8', timeout: 40_000 });
  const started = run('start', path.join(ROOT, 'deploy/pm2/sweep-worker.config.js'));
  expect([started.status, started.stderr]).toEqual([0, '']);
  const out = () => logFile('logs/tradebot-sweep-worker-out.log');
  await waitFor(() => (parseLines(out()).some((l) => l.msg === 'sweep worker ready') ? true : undefined), 30_000,
    () => `no "sweep worker ready"\n${out()}\n${logFile('logs/tradebot-sweep-worker-error.log')}`);
  const worker = jlist().find((a) => a.name === 'tradebot-sweep-worker');
  expect(worker?.pm2_env.status).toBe('online');
  expect(pm2('jlist').stdout).not.toContain(REDIS_URL);
  expect(run('stop', 'tradebot-sweep-worker').status).toBe(0);
  expect(jlist().find((a) => a.name === 'tradebot-sweep-worker')?.pm2_env).toMatchObject({ status: 'stopped', exit_code: 0, restart_time: 0 });
  expect(parseLines(out()).find((l) => l.msg === 'stopping: no new chunks')).toMatchObject({ signal: 'SIGINT' });
  expect(run('delete', 'tradebot-sweep-worker').status).toBe(0);
});
