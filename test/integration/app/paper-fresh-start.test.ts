import type { DaemonProcess, LogLine } from './daemon-process';
import { PaperRedisSuite } from './paper-redis-suite';

/**
 * A second paper run with the embedded simulator on the Redis (and prefix) of an earlier one (issue 30:
 * "a second paper run on the same Redis replays the previous run's realised PnL and leases"): the
 * simulated market starts again at the same candles, so the earlier run's journal, realised PnL and
 * drift records are cleared at start-up, and one warn line says what went.
 */
jest.setTimeout(120_000);

const suite = new PaperRedisSuite('freshstart');
const msg = (m: string) => (l: LogLine): boolean => l.msg === m;
const CLEARED = (l: LogLine): boolean => l.msg.startsWith('paper: a new simulated market; the earlier paper run\'s state was cleared');
const journal = (): { clientOrderId: string; createdAtMs: number }[] => suite.journal(5000);

async function realizedPnl(d: DaemonProcess): Promise<number | undefined> {
  const port = d.lines.find(msg('metrics server listening'))!['port'] as number;
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('tradebot_realized_pnl{strategy="churn",market="BTC_USDT"}'));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('the second run starts clean: the clearing line with the first run\'s counts, only its own orders, no realised PnL carried, one run recorded', async () => {
  // 1. The first run trades until it has realised PnL, then stops cleanly (its leases released).
  let d = suite.run();
  await d.waitForLine(msg('tradebot started'), 30_000, 'first start');
  expect(d.lines.some(CLEARED)).toBe(false);
  await until('realised PnL and three orders in the first run', 60_000, async () => d.count(msg('order submitted')) >= 3 && ((await realizedPnl(d)) ?? 0) !== 0);
  d.signal('SIGTERM');
  expect((await d.exit()).code).toBe(0);
  const account = d.lines.find(msg('Redis connected'))!['account'] as string;
  const runsKey = `${suite.prefix}:paper:{${account}}:drift:runs`;
  const first = journal();
  expect(first.length).toBeGreaterThanOrEqual(3);
  expect(await suite.redis.zcard(runsKey)).toBe(1);
  const [firstRunId] = await suite.redis.zrangebyscore(runsKey, '-inf', '+inf');
  const firstRun = await suite.redis.hgetall(`${suite.prefix}:paper:{${account}}:drift-run:${firstRunId!}`);

  // 2. The second run on the same Redis and prefix; slower (60x), so nothing of its own has filled when it says it started.
  const startedAt = Date.now();
  d = suite.run({ TRADEBOT_PAPER_SPEED: '60' });
  await d.waitForLine(msg('tradebot started'), 30_000, 'second start');
  const cleared = d.lines.filter(CLEARED);
  expect(cleared).toHaveLength(1);
  expect(cleared[0]).toMatchObject({
    level: 'warn', orders: first.length, runs: 1,
    earlierFrom: new Date(Number(firstRun['startedMarketMs'])).toISOString(), earlierTo: new Date(Number(firstRun['stoppedMarketMs'])).toISOString(),
  });
  expect(cleared[0]!.msg).toContain(`(${first.length} orders journaled (`);
  expect(cleared[0]!.msg).toContain('run `tradebot drift` over a paper run before restarting the daemon');
  // Nothing of the first run: no realised PnL seeded from its fills, one run (this one) in the deployment log.
  expect(await realizedPnl(d)).toBe(0);
  const runs = await suite.redis.zrangebyscore(runsKey, '-inf', '+inf');
  expect(runs).toHaveLength(1);
  expect(runs[0]).not.toBe(firstRunId);

  // Its own orders come, and the journal holds only them.
  await d.waitForLine(msg('order submitted'), 30_000, 'an order of the second run');
  const second = journal();
  expect(second.length).toBeGreaterThan(0);
  expect(second.filter((r) => r.createdAtMs < startedAt)).toEqual([]);
  d.signal('SIGTERM');
  expect((await d.exit()).code).toBe(0);
});
