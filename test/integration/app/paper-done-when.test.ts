import Redis from 'ioredis';
import { DaemonProcess, paperConfig, requireBuild, runCli, writeConfig, type LogLine } from './daemon-process';

/**
 * Issue 11's "done when", end to end with the daemon as a child process and a real Redis:
 * - the shipped config/paper.yaml (default dialect: venue) trades stop-limit AND OCO orders through
 *   its embedded simulator speaking the venue dialect, strictly;
 * - `tradebot orders` shows partial fills (orders large against the candles' volume fill in parts).
 */
jest.setTimeout(150_000);

const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL']!;
const msg = (m: string) => (l: LogLine): boolean => l.msg === m;

interface JournalRow { clientOrderId: string; kind: string; status: string; amount: string; filledAmount: string }
function journal(configFile: string, env: NodeJS.ProcessEnv): JournalRow[] {
  const r = runCli(['orders', '--json', '--limit', '1000', '--config', configFile], env);
  if (r.code !== 0) throw new Error(`orders failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout) as JournalRow[];
}

let redis: Redis;
let daemon: DaemonProcess | undefined;
const prefixes: string[] = [];
beforeAll(() => {
  requireBuild();
  redis = new Redis(REDIS_URL);
});
afterEach(async () => daemon?.kill());
afterAll(async () => {
  for (const p of prefixes) {
    const keys = await redis.keys(`${p}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  await redis.quit();
});

test('config/paper.yaml as shipped (venue dialect): stop-limit and OCO orders accepted by the strict simulator and journaled', async () => {
  const prefix = `tbtest-donevenue-${process.pid}-${Date.now()}`;
  prefixes.push(prefix);
  const env = { TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: prefix, TRADEBOT_METRICS_PORT: '0', TRADEBOT_PAPER_SPEED: '1200' };
  const check = runCli(['check-config', '--config', 'config/paper.yaml'], env);
  expect(check.code).toBe(0);
  daemon = new DaemonProcess(['run', '--config', 'config/paper.yaml'], env);
  await daemon.waitForLine(msg('tradebot started'), 30_000, 'start');
  // From the log (cheaper than asking the journal every time): an accepted order of each kind.
  const acceptedOf = (kind: string) => (l: LogLine): boolean => l.msg === 'order accepted'
    && daemon!.lines.some((s) => s.msg === 'order submitted' && s['kind'] === kind && s['clientOrderId'] === l['clientOrderId']);
  await daemon.waitForLine(acceptedOf('stop_limit'), 120_000, 'an accepted stop-limit');
  await daemon.waitForLine(acceptedOf('oco_sl'), 120_000, 'an accepted OCO');
  daemon.signal('SIGTERM');
  expect((await daemon.exit()).code).toBe(0);
  // Nothing was refused for its wire spelling (the simulator refuses fields its dialect does not know).
  expect(daemon.lines.filter((l) => l.msg === 'order rejected' && /TB_ERR_EXCHANGE_VALIDATION|BAD_RESPONSE/.test(String(l['reason'])))).toEqual([]);
  expect(daemon.lines.some((l) => l.level === 'error' && /client order id ignored|HTTP 453/.test(l.msg))).toBe(false);
  const rows = journal('config/paper.yaml', env);
  const settled = (kind: string) => rows.some((r) => r.kind === kind && !['pending', 'submitted', 'unknown', 'rejected'].includes(r.status));
  expect(settled('stop_limit') && settled('oco_sl') && settled('oco_tp')).toBe(true);
});

test('`tradebot orders` shows partial fills: large orders fill in parts over several candles', async () => {
  const prefix = `tbtest-donepart-${process.pid}-${Date.now()}`;
  prefixes.push(prefix);
  const base = paperConfig();
  const cfg = writeConfig({
    ...base,
    paper: { ...(base['paper'] as object), balances: { USDT: '10000000', BTC: '100' }, fill: { volumeShare: 0.05 } },
    strategies: { ...(base['strategies'] as object), enabled: [{ name: 'churn', params: { amount: '3' } }] },
    risk: { defaults: { maxNotionalPerOrder: '1000000', priceBand: '0.05' } },
  });
  const env = { TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: prefix };
  try {
    daemon = new DaemonProcess(['run', '--config', cfg.file], env);
    await daemon.waitForLine(msg('tradebot started'), 30_000, 'start');
    const partial = (r: JournalRow): boolean => Number(r.filledAmount) > 0 && Number(r.filledAmount) < Number(r.amount);
    await daemon.waitForLine(msg('order partially filled'), 120_000, 'a partial fill');
    daemon.signal('SIGTERM');
    expect((await daemon.exit()).code).toBe(0);

    const table = runCli(['orders', '--limit', '1000', '--config', cfg.file], env);
    expect(table.code).toBe(0);
    const rows = journal(cfg.file, env).filter(partial);
    expect(rows.length).toBeGreaterThan(0);
    // The table says so in words: still resting in part, or cancelled after part of it executed.
    expect(table.stdout).toMatch(/partially_filled|canceled, partly filled/);
    for (const r of rows) expect(table.stdout).toContain(r.filledAmount);
  } finally {
    cfg.cleanup();
  }
});
