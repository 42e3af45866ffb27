import { SystemClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryNonceSource } from '../../../src/exchange/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import { loadCsvRows, rowToCandle } from '../../../src/market-data/csv-candles';
import { startSimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { simMarketInfo } from '../../../src/simulator/sim-markets';
import { BacktestReplay } from '../../../src/backtest/replay/backtest-replay';
import { loadNamedStrategy } from '../../../src/backtest/run-backtest';
import type { OrderLogEntry } from '../../../src/backtest/replay/order-flow';
import { exchangeClientOrderId } from '../../../src/execution/oco-ids';
import { paperRun } from './paper-run';

// Real BTC/USDT 1m candles (with the source's 2-hour outage); both example strategies,
// sma-cross (stop-limit entries/exits, cancels) and rsi-reversion (stop-limit entries, OCO exits),
// on 5m candles, sharing one account.
const FIXTURE = 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv';

const key = (o: OrderLogEntry) => [o.time, o.strategy, o.kind, o.outcome, o.clientOrderId ?? '', o.side ?? '', o.price?.toString() ?? '',
  o.amount?.toString() ?? '', o.activationPrice?.toString() ?? '', o.stopLimitPrice?.toString() ?? ''].join(' ');
const fillKey = (f: { time: number; clientOrderId: string; side: string; price: Decimal; amount: Decimal }) =>
  [f.time, f.clientOrderId, f.side, f.price.toString(), f.amount.toString()].join(' ');

test('a backtest and a paper run through the daemon Executor over HTTP on the same candles produce the same orders and fills', async () => {
  // About 30 hours, across the outage (keeps the HTTP run short).
  const rows = (await loadCsvRows(FIXTURE)).slice(0, 1800);
  const load = (name: string) => loadNamedStrategy({ strategy: name, interval: '5m', balances: {} }, ['BTC_USDT']);
  const strategies = [load('rsi-reversion'), load('sma-cross')];
  const balances = { USDT: '10000' };

  const backtest = await new BacktestReplay({
    strategies, markets: [{ info: simMarketInfo('BTC_USDT'), candles: rows.map(rowToCandle) }], dataInterval: '1m',
    balances: { USDT: new Decimal(balances.USDT) },
  }).run();

  const sim = await startSimulatedExchange({
    apiKey: 'paper', apiSecret: 'paper-secret', balances, markets: [{ name: 'BTC_USDT', rows }], speed: 0, start: rows[0]!.time, rateLimits: false,
  });
  try {
    const clock = new SystemClock();
    const client = new HttpExchangeClient({
      baseUrl: sim.url, primaryRegion: 'global', credentials: { apiKey: 'paper', apiSecret: 'paper-secret' },
      nonceSource: new InMemoryNonceSource(clock), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 5000,
    });
    const paper = await paperRun({ sim, client, strategies, market: 'BTC_USDT', interval: '5m', minutes: rows.map((r) => r.time) });

    const placed = backtest.orders.filter((o) => o.outcome === 'placed');
    expect(placed.length).toBeGreaterThan(10);
    expect(placed.some((o) => o.kind === 'stop_limit' && o.strategy === 'sma-cross')).toBe(true);
    expect(backtest.orders.some((o) => o.kind === 'oco')).toBe(true);
    expect(backtest.orders.some((o) => o.kind === 'cancel' && o.outcome === 'canceled')).toBe(true);
    expect(paper.orders.map(key)).toEqual(backtest.orders.map(key));

    const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const backtestFills = backtest.fills.map((f) => fillKey(f)).sort(order);
    expect(backtestFills.length).toBeGreaterThan(5);
    expect(paper.fills.map(fillKey).sort(order)).toEqual(backtestFills);

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

    // And the account ends in the same place.
    const paperBalances = await client.fetchTradingBalances();
    for (const cur of ['USDT', 'BTC']) expect(paperBalances[cur]!.available.toString()).toBe(backtest.finalBalances[cur]!.available.toString());
  } finally {
    await sim.close();
  }
}, 60_000); // ~12 s on a quiet machine; the HTTP half slows down a lot on a shared, loaded one
