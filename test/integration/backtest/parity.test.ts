import { SystemClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import { loadCsvRows, rowToCandle } from '../../../src/candle-files/csv-candles';
import { InProcessExchange } from '../../../src/simulator/in-process-exchange';
import { startSimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { simMarketInfo } from '../../../src/simulator/sim-markets';
import { BacktestReplay } from '../../../src/backtest/replay/backtest-replay';
import { loadNamedStrategy } from '../../../src/backtest/run-backtest';
import type { OrderLogEntry } from '../../../src/backtest/replay/order-log';
import { exchangeClientOrderId } from '../../../src/execution/journal/oco-ids';
import { parseFillModel } from '../../../src/domain/fill-model';
import { paperRun } from './paper-run';
import { probeStrategies } from '../../helpers/ctx-probe';

// Real BTC/USDT 1m candles (with the source's 2-hour outage); both example strategies,
// sma-cross (stop-limit entries/exits, cancels) and rsi-reversion (stop-limit entries, OCO exits),
// on 5m candles, sharing one account.
const FIXTURE = 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv';

const key = (o: OrderLogEntry) => [o.time, o.strategy, o.kind, o.outcome, o.clientOrderId ?? '', o.side ?? '', o.price?.toString() ?? '',
  o.amount?.toString() ?? '', o.activationPrice?.toString() ?? '', o.stopLimitPrice?.toString() ?? ''].join(' ');
const fillKey = (f: { time: number; clientOrderId: string; side: string; price: Decimal; amount: Decimal }) =>
  [f.time, f.clientOrderId, f.side, f.price.toString(), f.amount.toString()].join(' ');

// The default fill model, and one whose tiny volume share (0.005 % of each candle) splits these small
// orders into several deals: partial fills, and orders cancelled part-filled, take the same path.
const DEFAULT_MODEL = parseFillModel({});
const TINY_SHARE = parseFillModel({ volumeShare: '0.00005' });

/** Fill events of one order within one candle, summed (amount, value) into one event at the average price. */
function mergeFills(events: readonly string[]): string[] {
  const out: string[] = [];
  const byOrder = new Map<string, { at: number; type: string; side: string; amount: Decimal; value: Decimal; total: string }>();
  const pattern = /^(filled|partially_filled) (\S+) (\S*) (buy|sell) (\S+) @(\S+) total (\S+)$/;
  for (const e of events) {
    const m = pattern.exec(e);
    if (m === null) { out.push(e); continue; }
    const [, type, id, leg, side, amount, price, total] = m as unknown as string[];
    const key = `${id} ${leg}`;
    const prev = byOrder.get(key);
    const value = new Decimal(amount!).times(price!);
    if (prev === undefined) {
      byOrder.set(key, { at: out.length, type: type!, side: side!, amount: new Decimal(amount!), value, total: total! });
      out.push(key);
    } else {
      prev.type = type!;
      prev.amount = prev.amount.plus(amount!);
      prev.value = prev.value.plus(value);
      prev.total = total!;
    }
  }
  for (const [key, f] of byOrder) out[f.at] = `${f.type} ${key} ${f.side} ${f.amount.toString()} @${f.value.dividedBy(f.amount).toString()} total ${f.total}`;
  return out;
}

test.each([
  ['the default fill model', DEFAULT_MODEL, '3000'],
  ['partial fills (volume share 0.00005)', TINY_SHARE, '3000'],
  // The daemon reads the collateral balance (its poller) as the backtest does: both deny the OCO exits.
  ['an unfunded collateral account', DEFAULT_MODEL, '0'],
])('a backtest and paper runs of the same kernel over HTTP and in process on the same candles produce the same orders, fills, balances and strategy inputs: %s', async (_name, parsed, collateralUsdt) => {
  if (!parsed.ok) throw new Error(parsed.reason);
  const fillModel = parsed.model;
  // About 30 hours, across the outage (keeps the HTTP run short).
  const rows = (await loadCsvRows(FIXTURE)).slice(0, 1800);
  const load = (name: string) => loadNamedStrategy({ strategy: name, interval: '5m', balances: {} }, ['BTC_USDT']);
  // Each run's strategies record what their ctx said about their orders (events, position, open orders with purpose).
  const backtestProbe = probeStrategies([load('rsi-reversion'), load('sma-cross')]);
  const balances = { USDT: '10000' };
  // The collateral account (OCO margin) is funded explicitly on both sides, as by a transfer live.
  const collateralBalances = { USDT: collateralUsdt };

  const backtest = await new BacktestReplay({
    strategies: backtestProbe.strategies, markets: [{ info: simMarketInfo('BTC_USDT'), candles: rows.map(rowToCandle) }], dataInterval: '1m',
    balances: { USDT: new Decimal(balances.USDT) }, collateralBalances: { USDT: new Decimal(collateralBalances.USDT) }, fillModel,
  }).run();

  const placed = backtest.orders.filter((o) => o.outcome === 'placed');
  expect(placed.length).toBeGreaterThan(10);
  expect(placed.some((o) => o.kind === 'stop_limit' && o.strategy === 'sma-cross')).toBe(true);
  expect(backtest.orders.some((o) => o.kind === 'oco')).toBe(true);
  const ocoOutcomes = new Set(backtest.orders.filter((o) => o.kind === 'oco').map((o) => `${o.outcome} ${o.rule ?? ''}`.trim()));
  expect([...ocoOutcomes]).toEqual(collateralUsdt === '0' ? ['denied balance'] : ['placed']);
  expect(backtest.orders.some((o) => o.kind === 'cancel' && o.outcome === 'canceled')).toBe(true);
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const backtestFills = backtest.fills.map((f) => fillKey(f)).sort(order);
  expect(backtestFills.length).toBeGreaterThan(5);
  const dealsPerOrder = new Map<string, number>();
  for (const f of backtest.fills) dealsPerOrder.set(f.clientOrderId, (dealsPerOrder.get(f.clientOrderId) ?? 0) + 1);
  const split = [...dealsPerOrder.values()].filter((n) => n > 1).length;
  if (fillModel.volumeShare !== null && fillModel.volumeShare.lessThan('0.001')) expect(split).toBeGreaterThan(3);
  // The strategies were told the same things about their orders on every candle: fills (the daemon
  // merges the deals of one order between two candles into one event at their average price; the
  // backtest, being the same pipeline, does too), cancels, denials, positions, open orders with their purpose.
  const told = (seen: typeof backtestProbe.seen) => seen.map((s) => [s.strategy, s.candleTime, mergeFills(s.events).join(' | '), s.position, s.openOrders.join(' | ')].join(' ; '));
  expect(backtestProbe.seen.some((s) => s.events.length > 0)).toBe(true);
  expect(backtestProbe.seen.map((s) => s.events.join(' | '))).toEqual(backtestProbe.seen.map((s) => mergeFills(s.events).join(' | ')));

  const portfolioOf = (states: typeof backtest.positions) => states.map((p) => [p.strategy, p.market, p.amount, p.averageEntry, p.realizedPnl, p.fees].map(String).join(' ')).sort(order);
  expect(backtest.positions.some((p) => !p.realizedPnl.isZero())).toBe(true);
  const runs: Record<string, { orders: OrderLogEntry[]; told: string[] }> = {};
  for (const transport of ['http', 'in-process'] as const) {
    const paperProbe = probeStrategies([load('rsi-reversion'), load('sma-cross')]);
    const sim = await startSimulatedExchange({
      apiKey: 'paper', apiSecret: 'paper-secret', balances, collateralBalances, markets: [{ name: 'BTC_USDT', rows }], speed: 0,
      start: rows[0]!.time, rateLimits: false, fillModel,
    });
    try {
      const clock = new SystemClock();
      const client = transport === 'http'
        ? new HttpExchangeClient({
          baseUrl: sim.url, primaryRegion: 'global', credentials: { apiKey: 'paper', apiSecret: 'paper-secret' },
          nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 5000,
        })
        : new InProcessExchange({ engine: sim.engine, apiKey: 'paper', feed: sim.feed });
      const paper = await paperRun({ sim, client, strategies: paperProbe.strategies, market: 'BTC_USDT', interval: '5m', minutes: rows.map((r) => r.time) });
      expect({ transport, orders: paper.orders.map(key) }).toEqual({ transport, orders: backtest.orders.map(key) });
      expect({ transport, fills: paper.fills.map(fillKey).sort(order) }).toEqual({ transport, fills: backtestFills });

      // The daemon's journal saw every outcome: nothing left unsettled, and the fills the
      // reconciler journaled per order are the exchange's deals.
      const records = await paper.journal.listAll(10_000);
      expect(records.length).toBeGreaterThanOrEqual(placed.length);
      expect(records.filter((r) => ['pending', 'submitted', 'unknown'].includes(r.status))).toEqual([]);
      const sums = (pairs: [string, Decimal][]) => {
        const m = new Map<string, Decimal>();
        for (const [id, v] of pairs) if (!v.isZero()) m.set(id, (m.get(id) ?? new Decimal(0)).plus(v));
        return [...m.entries()].map(([id, v]) => `${id} ${v.toString()}`).sort(order);
      };
      expect(sums(records.map((r) => [exchangeClientOrderId(r), new Decimal(r.filledAmount)]))).toEqual(sums(paper.fills.map((f) => [f.clientOrderId, f.amount])));
      expect({ transport, told: told(paperProbe.seen) }).toEqual({ transport, told: told(backtestProbe.seen) });

      // And the account ends in the same place.
      const paperBalances = await client.fetchTradingBalances();
      for (const cur of ['USDT', 'BTC']) expect(`${transport} ${cur} ${paperBalances[cur]!.available.toString()}`).toBe(`${transport} ${cur} ${backtest.finalBalances[cur]!.available.toString()}`);
      // One portfolio: the same positions, average entries, realised PnL and fees.
      expect({ transport, positions: portfolioOf(paper.positions) }).toEqual({ transport, positions: portfolioOf(backtest.positions) });
      runs[transport] = { orders: paper.orders, told: told(paperProbe.seen) };
    } finally {
      await sim.close();
    }
  }
  // Over the two transports the one pipeline logs the same words, refusals included (code, venue code, message).
  const full = (o: OrderLogEntry) => `${key(o)} ${o.rule ?? ''} ${o.venueCode ?? ''} ${o.reason ?? ''}`;
  expect(runs['in-process']!.orders.map(full)).toEqual(runs['http']!.orders.map(full));
}, 90_000); // ~15 s on a quiet machine; the HTTP run slows down a lot on a shared, loaded one
