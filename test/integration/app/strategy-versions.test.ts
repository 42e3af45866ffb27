import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import Redis from 'ioredis';
import { stringify } from 'yaml';
import { DaemonProcess, paperConfig, requireBuild, runCli, type LogLine } from './daemon-process';

/**
 * Issue #24 end to end: a paper daemon (child process) whose strategy module is edited under it,
 * reloaded into a shadow, compared, promoted and rolled back without a restart; a broken version
 * refused while the old one trades; SIGKILL during a promotion, then one consistent version.
 */
jest.setTimeout(150_000);

const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL']!;
const TEMPLATE = readFileSync(path.join(__dirname, 'versions', 'ladder.template.js'), 'utf8');
const msg = (m: string) => (l: LogLine): boolean => l.msg === m;
const seen = (mark: string) => (l: LogLine): boolean => l.msg === 'seen' && (l['guest'] as { mark?: string } | undefined)?.mark === mark;

/** The test strategy at one version: `mark` shows in its log lines, `far` moves its far order's price. */
function ladder(mark: string, far: string): string {
  return TEMPLATE.replace(/__MARK__/g, mark).replace(/__FAR__/g, far);
}

interface Setup { dir: string; module: string; config: string; stateDir: string; cleanup(): void }

function setup(overrides: Record<string, unknown> = {}): Setup {
  const dir = mkdtempSync(path.join(tmpdir(), 'tradebot-versions-'));
  const strategies = path.join(dir, 'strategies');
  const stateDir = path.join(dir, 'state');
  cpSync(path.join(__dirname, 'versions'), strategies, { recursive: true, filter: (f) => !f.endsWith('.template.js') });
  const module = path.join(strategies, 'ladder.js');
  writeFileSync(module, ladder('v1', '1.04'));
  const base = paperConfig();
  const config = path.join(dir, 'config.yaml');
  writeFileSync(config, stringify({
    ...base,
    // Thread guests: the process guests' permission model needs node_modules at its real path.
    strategies: { dir: strategies, stateDir, enabled: [{ name: 'ladder' }] },
    ...overrides,
  }));
  return { dir, module, config, stateDir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function cli(args: string[], env: NodeJS.ProcessEnv): { code: number | null; stdout: string; stderr: string; ms: number } {
  const started = Date.now();
  const r = runCli(args, env);
  return { ...r, ms: Date.now() - started };
}

async function metrics(daemon: DaemonProcess): Promise<string> {
  const port = daemon.lines.find(msg('metrics server listening'))!['port'] as number;
  // Once more on a transport error: a kept-alive connection the server just closed fails as "other side closed".
  const scrape = async (): Promise<string> => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return scrape().catch(() => scrape());
}

/** Waits until `count` more lines match than now. */
async function more(daemon: DaemonProcess, match: (l: LogLine) => boolean, count: number, what: string): Promise<void> {
  const target = daemon.count(match) + count;
  await daemon.waitForLine(() => daemon.count(match) >= target, 30_000, what);
}

let daemon: DaemonProcess | undefined;
afterEach(async () => { await daemon?.kill(); daemon = undefined; });
beforeAll(() => requireBuild());

describe('with Redis: reload, shadow, promote, rollback on a running daemon', () => {
  const PREFIX = `tbtest-versions-${process.pid}-${Date.now()}`;
  const ENV = { TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: PREFIX };
  let s: Setup;
  let redis: Redis;
  beforeAll(() => { s = setup(); redis = new Redis(REDIS_URL); });
  afterAll(async () => {
    const keys = await redis.keys(`${PREFIX}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    s.cleanup();
  });

  test('trading goes on through reload, shadow, a refused broken version, promote and rollback: no candle skipped, no order twice, orders and position kept', async () => {
    daemon = new DaemonProcess(['run', '--config', s.config], ENV);
    const d = daemon;
    await d.waitForLine(msg('tradebot started'), 30_000, 'start');
    const v1 = (d.lines.find(msg('strategies running'))!['strategies'] as { version: string }[])[0]!.version;
    await more(d, msg('order submitted'), 4, 'v1 orders');

    // 1. reload: the edited module runs as a shadow, warmed from the kept candles.
    writeFileSync(s.module, ladder('v2', '1.045'));
    const reload = cli(['reload', '--config', s.config], ENV);
    expect([reload.code, reload.stdout]).toEqual([0, expect.stringContaining('runs as the shadow')]);
    const v2 = /version ([0-9a-f]{12}) runs as the shadow/.exec(reload.stdout)![1]!;
    expect(v2).not.toBe(v1);
    await more(d, seen('v2'), 5, 'shadow candles');
    type Status = { strategies: { live: { version: string }; shadow: { version: string; summary: { candles: number; divergences: Record<string, number>; recent: { divergences: { kind: string; live: string; shadow: string }[] }[] } } }[] };
    // The daemon writes the status at most once a second: read until it shows a few compared candles.
    let st!: Status['strategies'][number];
    for (const until = Date.now() + 15_000; Date.now() < until;) {
      st = (JSON.parse(cli(['shadow', 'ladder', '--json', '--config', s.config], ENV).stdout) as Status).strategies[0]!;
      if (st.shadow.summary.divergences['different']! >= 3) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    expect([st.live.version, st.shadow.version]).toEqual([v1, v2]);
    expect(st.shadow.summary.candles).toBeGreaterThanOrEqual(3);
    // The far order differs in price (1.04 vs 1.045 of the close): "different", candle by candle.
    expect(st.shadow.summary.divergences['different']).toBeGreaterThanOrEqual(3);
    expect(st.shadow.summary.recent.at(-1)!.divergences[0]!.kind).toBe('different');
    let text = await metrics(d);
    expect(text).toContain(`tradebot_strategy_version_info{strategy="ladder",version="${v1}",role="live"} 1`);
    expect(text).toContain(`tradebot_strategy_version_info{strategy="ladder",version="${v2}",role="shadow"} 1`);
    expect(text).toMatch(/tradebot_strategy_shadow_divergences_total\{strategy="ladder",divergence="different"\} [1-9]/);

    // 2. a broken version is refused with the reason; the running one keeps trading; the shadow stays.
    writeFileSync(s.module, 'module.exports = {\n');
    const broken = cli(['reload', '--strategy', 'ladder', '--config', s.config], ENV);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/refused \(ladder\): .*ladder\.js: failed to load/);
    expect(broken.stdout).toContain(path.dirname(s.module)); // names the file the author edits
    await more(d, msg('order submitted'), 3, 'orders after the refusal');
    writeFileSync(s.module, ladder('v2', '1.045'));

    // 3. promote: v2 trades from the next candle; it sees v1's open orders and position.
    const beforePromote = d.lines.filter(seen('v1')).at(-1)!;
    expect(cli(['promote', 'ladder', '--config', s.config], ENV)).toMatchObject({ code: 0, stdout: expect.stringContaining(`version ${v2} is live`) });
    await more(d, msg('order submitted'), 4, 'orders after the promotion');
    expect(Number(beforePromote['guest'] && (beforePromote['guest'] as { open: number }).open)).toBeGreaterThanOrEqual(0);
    text = await metrics(d);
    expect(text).toContain(`tradebot_strategy_version_info{strategy="ladder",version="${v2}",role="live"} 1`);
    expect(text).toContain(`tradebot_strategy_version_info{strategy="ladder",version="${v1}",role="shadow"} 1`);
    // Paper keys live in the paper namespace (account-store.ts storeKeysFor): `<prefix>:paper:{account}`.
    const connected = d.lines.find(msg('Redis connected'))!;
    expect(connected['prefix']).toBe(`${PREFIX}:paper`);
    expect(await redis.hget(`${PREFIX}:paper:{${connected['account'] as string}}:control:strategy-versions`, 'ladder')).toContain(v2);

    // 4. rollback: v1 trades again.
    expect(cli(['rollback', 'ladder', '--config', s.config], ENV)).toMatchObject({ code: 0, stdout: expect.stringContaining(`version ${v1} is live`) });
    await more(d, msg('order submitted'), 4, 'orders after the rollback');
    expect(await metrics(d)).toContain(`tradebot_strategy_version_info{strategy="ladder",version="${v1}",role="live"} 1`);
    expect(d.count(msg('strategy version promoted'))).toBe(1);
    expect(d.count(msg('strategy rolled back'))).toBe(1);
    expect(d.count(msg('strategy change refused: the running version keeps trading'))).toBe(1);
    // Both versions saw the same position and open orders on the same candle: the latest candle both
    // have logged (the live and the shadow guest log a candle in either order).
    const candleOf = (l: LogLine): number => (l['guest'] as { t: number }).t;
    const v1Lines = d.lines.filter(seen('v1'));
    const sameCandle = d.lines.filter(seen('v2')).filter((l) => v1Lines.some((w) => candleOf(w) === candleOf(l))).at(-1)!;
    const twin = v1Lines.find((l) => candleOf(l) === candleOf(sameCandle))!;
    expect({ ...(twin['guest'] as object), mark: 'x' }).toEqual({ ...(sameCandle['guest'] as object), mark: 'x' });

    d.signal('SIGTERM');
    expect((await d.exit()).code).toBe(0);

    // The journal: every order names the version that placed it; one far order per candle, no gap.
    const r = runCli(['orders', '--json', '--limit', '5000', '--config', s.config], ENV);
    const rows = JSON.parse(r.stdout) as { clientOrderId: string; candleTime: string; amount: string; strategyVersion?: string }[];
    const far = rows.filter((x) => x.amount === '0.0002');
    expect(new Set(far.map((x) => x.strategyVersion))).toEqual(new Set([v1, v2]));
    const times = far.map((x) => Number(x.candleTime)).sort((a, b) => a - b);
    expect(new Set(times).size).toBe(times.length); // no candle's order placed twice
    const dropped = new Set(d.lines.filter(msg('intents dropped: candle older than one interval')).map((l) => l['candleTime'] as number));
    const missing: number[] = [];
    for (let t = times[0]!; t <= times.at(-1)!; t += 60) if (!times.includes(t) && !dropped.has(t)) missing.push(t);
    if (missing.length > 0) writeFileSync('/tmp/rl/test-lines.json', d.lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(missing).toEqual([]);
  });
});

describe('without Redis (paper): reload, SIGKILL during a promotion', () => {
  let s: Setup;
  beforeAll(() => { s = setup(); });
  afterAll(() => s.cleanup());

  test('after a SIGKILL during the promotion the daemon restarts with one version: the stored one, the other as its shadow', async () => {
    const ENV = {};
    daemon = new DaemonProcess(['run', '--config', s.config], ENV);
    let d = daemon;
    await d.waitForLine(msg('tradebot started'), 30_000, 'start');
    const v1 = (d.lines.find(msg('strategies running'))!['strategies'] as { version: string }[])[0]!.version;
    writeFileSync(s.module, ladder('v2', '1.045'));
    // `tradebot reload` through the control files (the daemon ignores SIGHUP: a signal never runs new code).
    const reload = new DaemonProcess(['reload', '--config', s.config], ENV);
    const reloaded = await d.waitForLine(msg('strategy reloaded: new version runs as a shadow (its intents are recorded, not sent)'), 30_000, 'reload');
    expect((await reload.exit()).code).toBe(0);
    const v2 = reloaded['shadow'] as string;
    await more(d, seen('v2'), 3, 'shadow candles');

    // The request is read within a second; the daemon is killed as it handles it.
    const promote = new DaemonProcess(['promote', 'ladder', '--config', s.config, '--timeout', '5'], ENV);
    await d.waitForLine((l) => l.msg === 'strategy request received' && (l['request'] as { command?: string } | undefined)?.command === 'promote', 10_000, 'the promote request');
    d.signal('SIGKILL');
    await d.exit();
    await promote.exit();

    const stored = existsSync(path.join(s.stateDir, 'control', 'promoted.json'))
      ? (JSON.parse(readFileSync(path.join(s.stateDir, 'control', 'promoted.json'), 'utf8')) as Record<string, { version: string }>)['ladder']?.version
      : undefined;
    // The reload pinned v1 before starting the shadow; the promotion stores v2 before swapping.
    expect([v1, v2]).toContain(stored);
    const expected = stored!;

    daemon = new DaemonProcess(['run', '--config', s.config], ENV);
    d = daemon;
    await d.waitForLine(msg('tradebot started'), 30_000, 'restart');
    const live = (d.lines.find(msg('strategies running'))!['strategies'] as { version: string }[])[0]!.version;
    expect(live).toBe(expected);
    await more(d, msg('order submitted'), 3, 'orders after the restart');
    const text = await metrics(d);
    const lives = text.split('\n').filter((l) => l.startsWith('tradebot_strategy_version_info{') && l.includes('role="live"'));
    expect(lives).toEqual([`tradebot_strategy_version_info{strategy="ladder",version="${expected}",role="live"} 1`]);
    if (stored === v1) {
      // Killed before the promotion was stored: v1 trades, v2 (on disk) is its shadow again, as before the kill.
      expect(text).toContain(`tradebot_strategy_version_info{strategy="ladder",version="${v2}",role="shadow"} 1`);
    }
  });
});

describe('replicas sharing Redis and leases', () => {
  const PREFIX = `tbtest-versions-replicas-${process.pid}-${Date.now()}`;
  const ENV = { TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: PREFIX };
  let s: Setup;
  let redis: Redis;
  let other: DaemonProcess | undefined;
  beforeAll(() => { s = setup(); redis = new Redis(REDIS_URL); });
  afterAll(async () => {
    await other?.kill();
    const keys = await redis.keys(`${PREFIX}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    s.cleanup();
  });

  test('a promotion on one daemon is applied by the other before its next candle (loaded from the kept sources); no order of the old version after it', async () => {
    daemon = new DaemonProcess(['run', '--config', s.config], ENV);
    const a = daemon;
    await a.waitForLine(msg('tradebot started'), 30_000, 'A start');
    other = new DaemonProcess(['run', '--config', s.config], ENV);
    const b = other;
    await b.waitForLine(msg('tradebot started'), 30_000, 'B start');
    const v1 = (b.lines.find(msg('strategies running'))!['strategies'] as { version: string }[])[0]!.version;

    // Only the daemon that pops the reload request reloads (the other never sees v2 as a shadow).
    writeFileSync(s.module, ladder('v2', '1.045'));
    const RELOADED = msg('strategy reloaded: new version runs as a shadow (its intents are recorded, not sent)');
    const reload = new DaemonProcess(['reload', '--config', s.config], ENV);
    expect((await reload.exit()).code).toBe(0);
    const reloader = a.lines.some(RELOADED) ? a : b;
    const follower = reloader === a ? b : a;
    const v2 = reloader.lines.find(RELOADED)!['shadow'] as string;
    expect(follower.count(RELOADED)).toBe(0);
    // The follower may pop the request first: it has no shadow, so it hands the request on to the reloader.
    const promoted = cli(['promote', 'ladder', '--config', s.config], ENV);
    expect([promoted.code, promoted.stdout]).toEqual([0, expect.stringContaining(`version ${v2} is live`)]);
    const applied = await follower.waitForLine(msg('strategy version promoted by another daemon: applied here before its next candle'), 15_000, 'the follower applies the promotion');
    expect([applied['from'], applied['to']]).toEqual([v1, v2]);
    expect(await metrics(follower)).toContain(`tradebot_strategy_version_info{strategy="ladder",version="${v2}",role="live"} 1`);
    await more(follower, seen('v2'), 3, 'the follower runs v2');

    // The journal: once the promotion is stored, the orders either daemon places come from v2.
    const account = a.lines.find(msg('Redis connected'))!['account'] as string;
    const stored = JSON.parse((await redis.hget(`${PREFIX}:paper:{${account}}:control:strategy-versions`, 'ladder'))!) as { version: string; atMs: number };
    expect(stored.version).toBe(v2);
    await more(a, msg('order submitted'), 3, 'orders after the promotion');
    const rows = JSON.parse(runCli(['orders', '--json', '--limit', '5000', '--config', s.config], ENV).stdout) as { createdAtMs: string; strategyVersion?: string }[];
    // A candle is 100 ms at 600x; an intent computed just before the store may still be journalled just after it.
    const late = rows.filter((r) => Number(r.createdAtMs) > stored.atMs + 1000);
    expect(late.length).toBeGreaterThan(0);
    expect(late.filter((r) => r.strategyVersion !== v2)).toEqual([]);
  });
});

describe('config changes on reload (paper, no Redis)', () => {
  let s: Setup;
  beforeAll(() => { s = setup(); });
  afterAll(() => s.cleanup());

  const rewrite = (patch: (c: Record<string, any>) => void): void => {
    const c = JSON.parse(JSON.stringify(require('yaml').parse(readFileSync(s.config, 'utf8')))) as Record<string, any>;
    patch(c);
    writeFileSync(s.config, stringify(c));
  };

  test('a key that cannot change live is refused by name; an invalid param is refused by the strict rules; a valid param change shadows and auto-promotes after strategies.shadowCandles clean candles', async () => {
    daemon = new DaemonProcess(['run', '--config', s.config], {});
    const d = daemon;
    await d.waitForLine(msg('tradebot started'), 30_000, 'start');
    const v1 = (d.lines.find(msg('strategies running'))!['strategies'] as { version: string }[])[0]!.version;

    rewrite((c) => { c['reconcile'] = { intervalSeconds: 7 }; });
    const live = cli(['reload', '--config', s.config], {});
    expect([live.code, live.stdout]).toEqual([1, expect.stringContaining('reconcile.intervalSeconds cannot change on a running daemon')]);
    rewrite((c) => { c['reconcile'] = { intervalSeconds: 1 }; c['strategies'].enabled[0].params = { amount: 5 }; });
    const bad = cli(['reload', '--config', s.config], {});
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/refused \(ladder\): .*amount/);
    await more(d, msg('order submitted'), 2, 'orders after the refusals');

    // Same code, new params: a shadow of the same version; promoted on its own after 5 clean candles.
    rewrite((c) => { c['strategies'].enabled[0].params = { amount: '0.002' }; c['strategies'].shadowCandles = 5; });
    const ok = cli(['reload', '--config', s.config], {});
    expect([ok.code, ok.stdout]).toEqual([0, expect.stringContaining(`version ${v1} runs as the shadow`)]);
    const auto = await d.waitForLine(msg('strategy version promoted'), 30_000, 'auto-promotion');
    expect(auto['by']).toBe('auto-promote');
    await more(d, msg('order submitted'), 2, 'orders after the auto-promotion');
    await new Promise((r) => setTimeout(r, 1500)); // the status is written at most once a second
    const status = JSON.parse(cli(['shadow', '--json', '--config', s.config], {}).stdout) as { strategies: { live: { params: { amount: string } } }[] };
    expect(status.strategies[0]!.live.params.amount).toBe('0.002');
  });
});

describe('a failing shadow (paper, no Redis)', () => {
  let s: Setup;
  beforeAll(() => { s = setup(); });
  afterAll(() => s.cleanup());

  test('its errors are counted like a live guest\'s, the live version keeps trading, and it cannot be promoted once paused', async () => {
    daemon = new DaemonProcess(['run', '--config', s.config], {});
    const d = daemon;
    await d.waitForLine(msg('tradebot started'), 30_000, 'start');
    writeFileSync(s.module, ladder('v3', '1.04').replace("ctx.log.info(", "throw new Error('v3 is broken at run time'); ctx.log.info("));
    const r = cli(['reload', '--config', s.config], {});
    expect([r.code, r.stdout]).toEqual([0, expect.stringContaining('runs as the shadow')]);
    await d.waitForLine((l) => l.msg === 'strategy paused after repeated failures' && l['role'] === 'shadow', 30_000, 'the shadow paused');
    await more(d, msg('order submitted'), 3, 'the live version trading on');
    const text = await metrics(d);
    expect(text).toMatch(/tradebot_strategy_shadow_errors_total\{strategy="ladder"\} [1-9]/);
    expect(text).toContain('tradebot_strategy_errors_total{strategy="ladder"} 0');
    expect(text).toContain('tradebot_strategy_paused{strategy="ladder"} 0');
    const p = cli(['promote', 'ladder', '--config', s.config], {});
    expect([p.code, p.stdout]).toEqual([1, expect.stringContaining('is paused after failures')]);
  });
});
