import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { STRATEGY_DEFAULTS } from '../../../src/config/defaults';
import { configSchema } from '../../../src/config/schema';
import { Decimal } from '../../../src/domain/decimal';
import { StrategyLoadError } from '../../../src/domain/errors';
import { DEFAULT_RISK_LIMITS } from '../../../src/backtest/replay/backtest-replay';
import { renderHtml, toReportJson } from '../../../src/backtest/report';
import { openRunLog } from '../../../src/backtest/run-log';
import { loadBacktestData, runBacktest, runFailed, type BacktestData } from '../../../src/backtest/run-backtest';
import { formatSummary } from '../../../src/backtest/summary';
import { parseRiskOption } from '../../../src/backtest/options';

/** A backtest that went wrong never reports itself as clean (issue 15, "honest runs"). */
const FIXTURES = path.resolve(__dirname, '../../fixtures/backtest-strategies');
const DATA = 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv';
const usdt = { USDT: new Decimal(10_000) };
let data: BacktestData;
beforeAll(async () => {
  data = await loadBacktestData([{ market: 'BTC_USDT', file: DATA }]);
});

describe('a strategy that throws', () => {
  test('is counted, paused after the daemon default of consecutive failures, and the run is failed in the summary, JSON and HTML', async () => {
    const outcome = await runBacktest({ strategy: 'thrower', strategiesDir: FIXTURES, balances: usdt }, data);
    const health = outcome.replay.health[0]!;
    expect(health).toMatchObject({
      strategy: 'thrower', calls: STRATEGY_DEFAULTS.maxConsecutiveFailures, errors: STRATEGY_DEFAULTS.maxConsecutiveFailures,
      errorsByReason: { threw: STRATEGY_DEFAULTS.maxConsecutiveFailures }, pauses: 1, pauseAfter: STRATEGY_DEFAULTS.maxConsecutiveFailures, overruns: 0,
    });
    const first = data.markets[0]!.candles[0]!.time;
    const firstBucket = Math.floor(first / 300) * 300;
    expect(health.samples[0]).toMatchObject({ reason: 'threw', market: 'BTC_USDT', message: expect.stringMatching(/^cannot read the order book at \d+$/) });
    expect(health.pausedAt).toBe(health.samples[STRATEGY_DEFAULTS.maxConsecutiveFailures - 1]!.candleTime);
    expect(health.pausedAt).toBeGreaterThan(firstBucket);
    expect(runFailed(outcome)).toBe(true);

    const summary = formatSummary(outcome);
    expect(summary).toMatch(/health {7}FAILED: 5 calls, 5 errors \(threw 5\), 0 overruns \(budget 250 ms\), paused after 5 consecutive failures at/);
    expect(summary).toMatch(/first failure .* \(threw\): cannot read the order book/);
    const json = toReportJson(outcome.result);
    expect(json['strategies']).toMatchObject([{ strategy: 'thrower', errors: 5, pauses: 1 }]);
    const html = renderHtml(outcome.result);
    expect(html).toContain('id="run-health" data-failed="true"');
    expect(html).toContain('cannot read the order book');
  });

  test('a clean run says so', async () => {
    const outcome = await runBacktest({ strategy: 'chatty', strategiesDir: FIXTURES, balances: usdt }, data);
    expect(runFailed(outcome)).toBe(false);
    expect(formatSummary(outcome)).toMatch(/health {7}ok: \d+ calls, 0 errors, 0 overruns/);
    expect(renderHtml(outcome.result)).toContain('id="run-health" data-failed="false"');
  });
});

describe('orders that did not go through', () => {
  test('denials are counted by rule and rejections carry the exchange code and field error, everywhere', async () => {
    const outcome = await runBacktest({ strategy: 'denied-buyer', strategiesDir: FIXTURES, balances: { ...usdt, BTC: new Decimal('0.01') } }, data);
    const orders = outcome.result.run.context!.orders;
    const strategyCandles = outcome.replay.strategyCandles;
    expect(orders.denied).toBe(strategyCandles);
    expect(orders.deniedBy).toEqual([expect.objectContaining({ key: 'balance', count: strategyCandles, example: expect.stringMatching(/^stop_limit buy 1000 BTC_USDT: buy needs .* USDT \(fees included\), available 10000/) })]);
    expect(orders.rejected).toBe(1);
    expect(orders.rejectedBy[0]).toMatchObject({ key: expect.stringMatching(/^TB_ERR_EXCHANGE_\w+ \(venue code \d+\)$/), count: 1 });
    expect(orders.rejectedBy[0]!.example).toMatch(/^stop_limit sell 0.001 BTC_USDT: .*activation_?price/i);

    const summary = formatSummary(outcome);
    expect(summary).toMatch(new RegExp(`orders {7}0 placed, ${strategyCandles} denied, 1 rejected`));
    expect(summary).toMatch(new RegExp(`denied {5}${strategyCandles} x balance`));
    expect(summary).toMatch(/rejected {3}1 x TB_ERR_EXCHANGE_\w+ \(venue code \d+\)/);
    expect(toReportJson(outcome.result)['orders']).toMatchObject({ denied: strategyCandles, rejected: 1, deniedBy: [{ key: 'balance' }] });
    const html = renderHtml(outcome.result);
    expect(html).toContain(`data-denied="${strategyCandles}"`);
    expect(html).toContain('id="denied-by-rule"');
    expect(html).toContain('id="rejected-by-reason"');
  });

  test('the rules that deny by design are stated', async () => {
    const outcome = await runBacktest({ strategy: 'chatty', strategiesDir: FIXTURES, balances: usdt, risk: parseRiskOption('{"defaults":{"priceBand":"0.05"}}') }, data);
    const rules = outcome.result.run.context!.assumptions;
    expect(rules.join('\n')).toMatch(/fee margin 0.002/);
    expect(rules.join('\n')).toMatch(/collateral separate \(as live\)/);
    expect(rules.join('\n')).toMatch(/paused after 5 consecutive failures/);
    expect(rules.join('\n')).toMatch(/prices within 0.05 of the last price/);
    expect(formatSummary(outcome)).toMatch(/^rules {8}balance check/m);
  });
});

describe('strict inputs and one set of defaults', () => {
  test('a typo in a parameter is refused with the real names listed', async () => {
    const run = runBacktest({ strategy: 'sma-cross', params: { fsat: 5 }, balances: usdt }, data);
    await expect(run).rejects.toThrow(StrategyLoadError);
    await expect(run).rejects.toThrow('strategy sma-cross: unknown parameter "fsat" (known: fast, slow,');
  });

  test('--risk is the config risk section: same defaults, unknown keys refused with the valid ones', () => {
    const configDefaults = configSchema.shape.risk.parse(undefined);
    expect(parseRiskOption(undefined)).toEqual(configDefaults);
    expect(DEFAULT_RISK_LIMITS.feeMargin?.toString()).toBe(configDefaults.feeMargin);
    expect(() => parseRiskOption('{"priceBnad":"0.05"}')).toThrow(/--risk: .*priceBnad.*\(the keys of the config's risk section: initialState, defaults, markets, dailyLossLimit, feeMargin, guardrails\)/);
  });

  test('the daemon config takes its strategy defaults from the same place as the backtest', () => {
    const strategies = configSchema.shape.strategies.parse({ enabled: [{ name: 'x' }] });
    expect(strategies.maxConsecutiveFailures).toBe(STRATEGY_DEFAULTS.maxConsecutiveFailures);
    expect(strategies.timeBudgetMs).toBe(STRATEGY_DEFAULTS.timeBudgetMs);
  });
});

test('ctx.log goes to the log file beside the report, stamped with the simulated time', async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'tb-log-')), 'out', 'backtest.log');
  const log = await openRunLog(file);
  const outcome = await runBacktest({ strategy: 'chatty', strategiesDir: FIXTURES, balances: usdt }, data, undefined, { log: log.factory, logFile: file });
  await log.close();
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const ticks = lines.filter((l) => l['msg'] === 'tick');
  expect(ticks).toHaveLength(outcome.replay.stats['chatty']!.calls);
  expect(lines.some((l) => l['msg'] === 'even hour' && l['level'] === 'debug')).toBe(true);
  // The time of a line is the market clock at the candle's close, not the wall clock.
  expect(ticks[0]).toMatchObject({ strategy: 'chatty', market: 'BTC_USDT', level: 'info', time: expect.stringMatching(/^2021-09-2\dT\d\d:00:00.000Z$/) });
  expect(outcome.result.run.context?.logFile).toBe(file);
});
