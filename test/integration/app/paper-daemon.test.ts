import { canonicalJson } from '../../../src/core/canonical-json';
import { runCli, strategiesWithBroken, TEST_STRATEGIES, type DaemonProcess, type LogLine } from './daemon-process';
import { PaperRedisSuite } from './paper-redis-suite';

/**
 * The daemon in paper mode as a child process (`node dist/src/main.js run`), its embedded simulated
 * exchange replaying real BTC/USDT candles at 600x, with a real Redis for the journal.
 */
jest.setTimeout(90_000);

// Its strategy directory also holds a broken module, which the daemon reports and runs without.
const suite = new PaperRedisSuite('paper', { strategies: { dir: strategiesWithBroken(), enabled: [{ name: 'churn' }] } });
const ENV = suite.env;
const msg = (m: string) => (l: LogLine): boolean => l.msg === m;
let daemon: DaemonProcess | undefined;

interface JournalRow { clientOrderId: string; strategy: string; status: string; filledAmount: string; strategyVersion?: string; strategyParams?: string; candleTime: number; createdAtMs: number; createdMarketMs: number | null }
const journal = (): JournalRow[] => suite.journal<JournalRow>();

test('candles flow, the strategy trades, fills reach the journal; a broken module is reported; SIGTERM mid-activity exits 0 with nothing unsettled', async () => {
  daemon = suite.run();
  await daemon.waitForLine(msg('tradebot started'), 20_000, 'start');
  const broken = daemon.lines.find((l) => l.msg.startsWith('strategy not loaded') && String(l['file']).endsWith('broken.js'));
  expect(broken).toBeDefined();
  expect(broken!.msg).toContain('broken.js');

  await daemon.waitForLine(msg('order filled'), 25_000, 'a fill');
  const metricsPort = daemon.lines.find(msg('metrics server listening'))!['port'] as number;
  const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  expect(metrics).toMatch(/tradebot_intents_total\{strategy="churn",result="accepted",rule="none"\} [1-9]/);
  // The answer to the submit can already show the order filled (marketable on arrival), so any way out of submitted counts.
  expect(metrics).toMatch(/tradebot_order_transitions_total\{from="submitted",to="(open|triggered|partially_filled|filled)"\} [1-9]/);
  expect(metrics).toMatch(/tradebot_candle_last_close_timestamp_seconds\{market="BTC_USDT",interval="1m"\} \d/);
  expect(metrics).toMatch(/tradebot_strategy_duration_seconds_count\{strategy="churn"\} [1-9]/);

  // SIGTERM right after a submission: in-flight work finishes, the process exits 0.
  const submitted = daemon.count(msg('order submitted'));
  await daemon.waitForLine((l) => l.msg === 'order submitted' && daemon!.count(msg('order submitted')) > submitted, 10_000, 'another submission');
  daemon.signal('SIGTERM');
  expect((await daemon.exit()).code).toBe(0);
  expect(daemon.lines.some(msg('stopped cleanly'))).toBe(true);

  const rows = journal();
  expect(rows.length).toBeGreaterThan(1);
  expect(rows.every((r) => r.strategy === 'churn')).toBe(true);
  expect(rows.some((r) => r.status === 'filled')).toBe(true);
  // Every order names the code and parameters that placed it: the version `strategies list` shows.
  const listed = runCli(['strategies', 'list', '--json', '--dir', TEST_STRATEGIES], ENV);
  const churn = (JSON.parse(listed.stdout) as { strategies: { name: string; version: string; params: unknown }[] }).strategies.find((s) => s.name === 'churn')!;
  expect(churn.version).toMatch(/^[0-9a-f]{12}$/);
  expect(rows.every((r) => r.strategyVersion === churn.version && r.strategyParams === canonicalJson(churn.params))).toBe(true);
  // Every order sent got its answer recorded: nothing is left submitted, unknown or pending.
  expect(rows.filter((r) => ['submitted', 'unknown', 'pending'].includes(r.status))).toEqual([]);
  // Creation in market time (the replayed candles' clock) next to the wall clock: just after its candle.
  for (const r of rows) {
    expect(r.createdMarketMs).not.toBeNull();
    expect(Math.abs(r.createdMarketMs! - r.candleTime * 1000)).toBeLessThan(30 * 60_000);
    expect(Math.abs(r.createdAtMs - r.candleTime * 1000)).toBeGreaterThan(24 * 3600_000);
  }
  const table = runCli(['orders', '--limit', '1', '--config', suite.file], ENV);
  const newest = rows[0]!;
  expect(table.stdout).toMatch(/^created \(market, UTC\)/);
  expect(table.stdout).toContain(new Date(newest.createdMarketMs!).toISOString().replace('T', ' ').slice(0, 19));
});

test('after a restart the journal starts clean (a new simulated market); `tradebot pause` stops new orders, `resume` lets them through again', async () => {
  const before = journal();
  daemon = suite.run();
  await daemon.waitForLine(msg('tradebot started'), 20_000, 'start');
  // The fresh simulator replays the same candles (the same deterministic client order ids): the earlier
  // run's journal is cleared, not mixed in (test/integration/app/paper-fresh-start.test.ts has the details).
  expect(daemon.lines.find((l) => l.msg.startsWith('paper: a new simulated market'))).toMatchObject({ level: 'warn', orders: before.length });
  const ids = journal().map((r) => r.clientOrderId);
  expect(new Set(ids).size).toBe(ids.length);

  const paused = runCli(['pause', '--config', suite.file, '--reason', 'e2e test'], ENV);
  expect(paused.code).toBe(0);
  await daemon.waitForLine((l) => l.msg === 'trading state changed' && l['state'] === 'halted', 10_000, 'halt');
  const submittedAtHalt = daemon.count(msg('order submitted'));
  const haltDenial = (l: LogLine): boolean => l.msg === 'intent denied' && l['rule'] === 'trading_state';
  // On a starved machine the 600x replay outruns the daemon and late candles' intents are dropped as stale
  // before they reach the trading state: both mean "not sent", and at least one must be the halt's denial.
  const staleDrop = (l: LogLine): boolean => l.msg === 'intents dropped: candle older than one interval';
  const deniedAtHalt = daemon.count(haltDenial);
  const notSentAtHalt = deniedAtHalt + daemon.count(staleDrop);
  // Candles keep flowing and the strategy keeps asking; no intent is sent while halted.
  await daemon.waitForLine(
    () => daemon!.count(haltDenial) >= deniedAtHalt + 1 && daemon!.count(haltDenial) + daemon!.count(staleDrop) >= notSentAtHalt + 3,
    30_000,
    'denied intents',
  );
  expect(daemon.count(msg('order submitted'))).toBe(submittedAtHalt);

  expect(runCli(['resume', '--config', suite.file], ENV).code).toBe(0);
  await daemon.waitForLine((l) => l.msg === 'trading state changed' && l['state'] === 'active', 10_000, 'resume');
  daemon.signal('SIGINT');
  expect((await daemon.exit()).code).toBe(0);
});

test('Ctrl-C (SIGINT to the whole process group, guests included) stops cleanly: no strategy is reported crashed or paused', async () => {
  daemon = suite.run({}, { ownGroup: true });
  await daemon.waitForLine(msg('tradebot started'), 60_000, 'tradebot started');
  await daemon.waitForLine(msg('order submitted'), 60_000, 'an order');
  daemon.signalGroup('SIGINT');
  expect((await daemon.exit()).code).toBe(0);
  expect(daemon.lines.filter((l) => l.msg === 'strategy failed' || l.msg === 'strategy paused after repeated failures')).toEqual([]);
  expect(daemon.lines.some((l) => l.msg === 'stopped cleanly')).toBe(true);
});
