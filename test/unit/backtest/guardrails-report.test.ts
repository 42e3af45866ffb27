import * as path from 'node:path';
import { Decimal } from '../../../src/domain/decimal';
import { renderHtml, toReportJson } from '../../../src/backtest/report';
import { loadBacktestData, runBacktest } from '../../../src/backtest/run-backtest';
import { formatSummary } from '../../../src/backtest/summary';
import { parseRiskOption } from '../../../src/backtest/options';

const ROOT = path.resolve(__dirname, '../../..');
const START = 1631917380 + 600;
const RISK = {
  guardrails: {
    strategyDefaults: { cooldown: [{ losses: 2, window: '10m', pause: '4m' }] },
    strategies: { 'guard-churn': { budget: { amount: '60' }, drawdown: [{ max: '0.3', window: '1h' }] } },
  },
};

/** The backtest report says when a guardrail acted and what it prevented (docs/risk.md). */
test('the report lists the trips and lifts and what each guardrail denied', async () => {
  const data = await loadBacktestData([{ market: 'BTC_USDT', file: path.join(ROOT, 'config/data/btc_usdt-1m-sample.csv') }], { from: START - 120, to: START + 40 * 60 });
  const outcome = await runBacktest(
    { strategy: 'guard-churn', strategiesDir: path.join(ROOT, 'test/integration/app/strategies'), balances: { USDT: new Decimal(100000), BTC: new Decimal(1) }, risk: parseRiskOption(JSON.stringify(RISK)) },
    { ...data, tradeFrom: START },
  );
  const guards = outcome.result.run.context?.guardrails;
  expect(guards?.events.filter((e) => e.type === 'tripped').map((e) => e.guard)).toEqual(['cooldown', 'cooldown', 'cooldown', 'cooldown', 'strategy_drawdown']);
  expect(guards?.events.filter((e) => e.type === 'lifted').every((e) => e.guard === 'cooldown' && e.by === 'window')).toBe(true);
  expect(guards?.prevented.map((p) => [p.rule, p.intents])).toEqual([['strategy_budget', 8], ['cooldown', 16], ['strategy_drawdown', 8]]);
  const summary = formatSummary(outcome);
  expect(summary).toContain('guardrails   5 tripped: cooldown guard-churn 2021-09-17T22:45:00Z');
  expect(summary).toMatch(/ {2}prevented {2}16 x cooldown: [\d.]+ notional kept from the exchange/);
  const html = renderHtml(outcome.result);
  expect(html).toContain('<h2>Guardrails</h2>');
  expect(html).toContain('id="guardrail-prevented"');
  expect((toReportJson(outcome.result)['guardrails'] as { prevented: unknown[] }).prevented).toHaveLength(3);
});

test('a run without guardrails has no such section', async () => {
  const data = await loadBacktestData([{ market: 'BTC_USDT', file: path.join(ROOT, 'config/data/btc_usdt-1m-sample.csv') }], { from: START, to: START + 10 * 60 });
  const outcome = await runBacktest({ strategy: 'guard-churn', strategiesDir: path.join(ROOT, 'test/integration/app/strategies'), balances: { USDT: new Decimal(100000) } }, data);
  expect(outcome.result.run.context?.guardrails).toBeUndefined();
  expect(renderHtml(outcome.result)).not.toContain('<h2>Guardrails</h2>');
});
