import * as path from 'node:path';
import { rowToCandle } from '../../../src/candle-files/csv-candles';
import { Decimal } from '../../../src/domain/decimal';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { simMarketInfo } from '../../../src/simulator/sim-markets';
import { storeKeysFor } from '../../../src/app/account-store';
import { RedisDeploymentLog } from '../../../src/store/deployment-log';
import { BacktestReplay } from '../../../src/backtest/replay/backtest-replay';
import { loadNamedStrategy } from '../../../src/backtest/run-backtest';
import { parseRiskOption } from '../../../src/backtest/options';
import { guardrailsFromConfig, riskLimitsFromConfig } from '../../../src/config/risk-limits';
import { DaemonProcess, requireBuild, ROOT, TEST_STRATEGIES, writeConfig, type LogLine } from './daemon-process';
import { RedisTestContext, testRedisUrl } from '../store/redis-test-context';
import { tokenSha256 } from '../../../src/console/token-book';
import { runCli } from '../../helpers/run-cli';

/**
 * The guardrails decide the same in the daemon (a paper `tradebot run`, a real child process, Redis)
 * as in a backtest over the same candles, intent by intent. Two strategies that lose on purpose
 * (guard-churn and guard-churn-b) share one account: each meets its budget (a share of the account) and
 * its cooldowns, the first its drawdown stop, and the account its own stop. The simulator is stepped
 * one candle at a time (its clock stands still while the daemon handles a candle), so the daemon's
 * orders reach the venue at the same market time as in the backtest and fill alike: what differs,
 * if anything, is the kernel. Half way, the daemon is SIGKILLed and restarted: peaks, losses and
 * stops come back from Redis, and the decisions after the restart still equal the backtest's.
 */
jest.setTimeout(240_000);

const API_KEY = 'guardrails-key';
const API_SECRET = 'guardrails-secret';
const CSV = path.join(ROOT, 'config/data/btc_usdt-1m-sample.csv');
const START = 1631917380 + 600;
const CANDLES = 40;
const KILL_AFTER = 18;
const STRATEGIES = ['guard-churn', 'guard-churn-b'];
const BALANCES = { USDT: '100000', BTC: '1' };
const RISK = {
  defaults: { maxNotionalPerOrder: '1000', priceBand: '0.05' },
  guardrails: {
    account: { drawdown: [{ max: '0.5', window: '30m', action: 'reduce' }] },
    strategyDefaults: { cooldown: [{ losses: 2, window: '10m', pause: '4m' }] },
    // guard-churn stops itself early; guard-churn-b trades on until the account's stop.
    strategies: { 'guard-churn': { budget: { share: '0.0005' }, drawdown: [{ max: '0.2', window: '1h' }] }, 'guard-churn-b': { budget: { share: '0.0005' } } },
  },
};

const ctx = new RedisTestContext();
let sim: SimulatedExchange | undefined;
let running: DaemonProcess | undefined;

beforeAll(() => requireBuild());
afterEach(async () => {
  await running?.kill();
  await sim?.close();
  await ctx.cleanup();
});

const VIEWER = 'guardrails-viewer-token';
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const started = (l: LogLine): boolean => l.msg === 'tradebot started';

/** A stepped simulator and a config for it; `step(k)` closes candle k and waits until a daemon handled it. */
async function stepped(name: string, extra: Record<string, unknown> = {}) {
  const prefix = ctx.configPrefix(name);
  const s = await startSimulatedExchange({
    apiKey: API_KEY, apiSecret: API_SECRET, balances: BALANCES, markets: [{ name: 'BTC_USDT', csvPath: CSV }], start: START, speed: 0, seed: 7,
  });
  sim = s;
  const cfg = writeConfig({
    mode: 'paper', paper: { exchangeUrl: s.url }, redis: { keyPrefix: prefix },
    strategies: { dir: TEST_STRATEGIES, enabled: STRATEGIES.map((n) => ({ name: n })) },
    risk: RISK, polling: { klineDelayMs: 1000 }, metrics: { port: 0, host: '127.0.0.1' }, log: { level: 'info' }, shutdown: { graceMs: 5000 },
    ...extra,
  });
  const env = { TRADEBOT_REDIS_URL: testRedisUrl(), TRADEBOT_API_KEY: API_KEY, TRADEBOT_API_SECRET: API_SECRET };
  const log = new RedisDeploymentLog(await ctx.client(), storeKeysFor('paper', API_KEY, prefix));
  /** One candle: the clock to its close (+ the kline delay), then wait until it is recorded and its decisions stopped coming. */
  const step = async (k: number): Promise<void> => {
    const open = START + k * 60;
    s.advanceTo(open + 60 + 1);
    const deadline = Date.now() + 20_000;
    while ((await log.candles('BTC_USDT', '1m', open, open + 60)).length === 0) {
      if (Date.now() > deadline) throw new Error(`candle ${open} not handled by the daemon within 20 s`);
      await sleep(50);
    }
    let seen = -1;
    for (;;) {
      const n = (await log.decisions(open, open + 60)).length;
      if (n === seen) return;
      seen = n;
      await sleep(250);
    }
  };
  return { s, cfg, env, log, step };
}

test('budgets, cooldowns and drawdown stops decide as the backtest, intent by intent, across a SIGKILL', async () => {
  const { s, cfg, env, log, step } = await stepped('tbguard', {
    console: { enabled: true, port: 0, tokens: [{ name: 'viewer1', role: 'viewer', sha256: tokenSha256(VIEWER) }] },
  });
  try {
    running = new DaemonProcess(['run', '--config', cfg.file], env);
    await running.waitForLine(started, 60_000, 'tradebot started');
    const port = Number((await running.waitForLine((l) => l.msg === 'metrics server listening', 1000))['port']);
    for (let k = 0; k < KILL_AFTER; k++) await step(k);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^tradebot_risk_guard_trips_total\{guard="cooldown",scope="guard-churn"\} [1-9]/m);
    expect(metrics).toMatch(/^tradebot_intents_total\{strategy="guard-churn-b",result="denied",rule="strategy_budget"\} [1-9]/m);
    expect(metrics).toMatch(/^tradebot_risk_budget_allocated\{strategy="guard-churn"\} \d/m);
    const tripsBefore = running.lines.filter((l) => l.msg === 'guardrail tripped').map((l) => [l['guard'], l['scope'], l['atMs']]);

    await running.kill(); // SIGKILL between two candles: what the guardrails know is in Redis, nothing else
    running = new DaemonProcess(['run', '--config', cfg.file], env);
    await running.waitForLine(started, 60_000, 'tradebot started');
    expect(running.lines.some((l) => l.msg === 'guardrail state restored')).toBe(true);
    for (let k = KILL_AFTER; k < CANDLES; k++) await step(k);
    // The console says what holds, why and until when (any replica reads the shared state).
    const consoleUrl = String(running.lines.find((l) => l.msg === 'console listening')?.['url']);
    const status = (await (await fetch(`${consoleUrl}/api/v1/status`, { headers: { authorization: `Bearer ${VIEWER}` } })).json()) as { guardrails: { guard: string; scope: string; action: string; reason: string }[] };
    expect(status.guardrails.map((g) => `${g.guard} ${g.scope} ${g.action}`)).toEqual(expect.arrayContaining(['strategy_drawdown guard-churn reduce', 'account_drawdown account reduce']));
    // And `tradebot status`, from the daemon's metrics.
    const metricsPort = Number(running.lines.find((l) => l.msg === 'metrics server listening')?.['port']);
    const cli = await runCli(['status', '--config', cfg.file, '--url', `http://127.0.0.1:${metricsPort}`], env);
    expect(cli.stdout).toMatch(/^guardrails in force/m);
    expect(cli.stdout).toMatch(/^ {2}account_drawdown +account$/m);
    const trips = [...tripsBefore, ...running.lines.filter((l) => l.msg === 'guardrail tripped').map((l) => [l['guard'], l['scope'], l['atMs']])];
    running.signal('SIGTERM');
    expect((await running.exit()).code).toBe(0);

    // The backtest: both strategies on one account, the candles before START warm them up.
    const rows = s.feed.source('BTC_USDT')!.rowsBetween(START - 120, START + CANDLES * 60);
    const risk = parseRiskOption(JSON.stringify(RISK));
    const replay = await new BacktestReplay({
      strategies: STRATEGIES.map((name) => loadNamedStrategy({ strategy: name, strategiesDir: TEST_STRATEGIES, balances: {} }, ['BTC_USDT'])),
      markets: [{ info: simMarketInfo('BTC_USDT'), candles: rows.map(rowToCandle) }], dataInterval: '1m',
      balances: { USDT: new Decimal(BALANCES.USDT), BTC: new Decimal(BALANCES.BTC) },
      risk: riskLimitsFromConfig(risk), guardrails: guardrailsFromConfig(risk), tradeFrom: START,
    }).run();

    const decided = (await log.decisions(START, START + CANDLES * 60)).filter((d) => d.kind !== 'cancel');
    const daemon = decided.map((d) => `${d.candleTime} ${d.strategy} ${d.outcome === 'denied' ? d.rule : 'accepted'}`).sort();
    const backtest = replay.orders.filter((o) => o.kind !== 'cancel')
      .map((o) => `${o.time - 60} ${o.strategy} ${o.outcome === 'denied' ? o.rule : 'accepted'}`).sort();
    const backtestTrips = replay.guardEvents.filter((e) => e.type === 'tripped').map((e) => [e.guard, e.scope, e.time * 1000]);
    console.log(`guardrails: ${daemon.length} intents; trips live ${JSON.stringify(trips)}; backtest ${JSON.stringify(backtestTrips)}`);
    for (const rule of ['strategy_budget', 'cooldown', 'strategy_drawdown', 'account_drawdown']) expect(daemon.some((x) => x.endsWith(` ${rule}`))).toBe(true);
    expect(daemon).toEqual(backtest);
    expect(sortTrips(trips)).toEqual(sortTrips(backtestTrips));
  } finally {
    cfg.cleanup();
  }
});

function sortTrips(t: readonly unknown[][]): string[] {
  return t.map((x) => x.join(' ')).sort();
}


test('two replicas: the standby says nothing of its own view, and taking over it trades under the stops the active one saved', async () => {
  const { s, cfg, env, log, step } = await stepped('tbguard2');
  const active = new DaemonProcess(['run', '--config', cfg.file], env);
  running = active;
  await active.waitForLine(started, 60_000, 'tradebot started (active)');
  const standby = new DaemonProcess(['run', '--config', cfg.file], env);
  try {
    await standby.waitForLine(started, 60_000, 'tradebot started (standby)');
    const stop = (l: LogLine): boolean => l.msg === 'guardrail tripped' && l['guard'] === 'strategy_drawdown';
    let k = 0;
    while (!active.lines.some(stop)) {
      if (k >= CANDLES) throw new Error(`no drawdown stop within ${CANDLES} candles\n${active.tail()}`);
      await step(k++);
    }
    await step(k++);
    expect(standby.lines.filter((l) => l.msg === 'guardrail tripped' || l.msg === 'guardrail lifted')).toEqual([]);
    await active.kill(); // SIGKILL: the standby takes the leases of a dead owner
    const killedAt = s.clock.nowMs();
    await standby.waitForLine((l) => l.msg === 'guardrail in force, taken over from the replica that traded' && l['guard'] === 'strategy_drawdown', 30_000, 'the stop taken over');
    for (let i = 0; i < 4; i++) await step(k++);
    const entries = (await log.decisions(START, START + CANDLES * 60))
      .filter((d) => d.marketMs > killedAt && d.strategy === 'guard-churn' && d.kind === 'stop_limit' && d.tag !== 'x');
    console.log(`takeover: ${JSON.stringify(entries.map((d) => [d.candleTime, d.outcome, d.rule]))}`);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((d) => d.outcome === 'denied' && d.rule !== 'lease')).toBe(true);
    expect(entries.some((d) => d.rule === 'strategy_drawdown' || d.rule === 'account_drawdown')).toBe(true);
  } finally {
    await standby.kill();
    cfg.cleanup();
  }
});
