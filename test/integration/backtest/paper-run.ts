import { SystemClock } from '../../../src/core/clock';
import { intervalSeconds, type Interval } from '../../../src/domain/candle';
import { Decimal } from '../../../src/domain/decimal';
import type { Balances } from '../../../src/domain/market';
import type { CollateralAssetBalance } from '../../../src/exchange/exchange-client';
import type { HttpExchangeClient } from '../../../src/exchange/http/client';
import { buildExecution } from '../../../src/execution/build-execution';
import { LeaseKeeper } from '../../../src/execution/lease-keeper';
import { exchangeClientOrderId } from '../../../src/execution/oco-ids';
import { RiskGate } from '../../../src/execution/risk-gate';
import { OpenOrderBook } from '../../../src/app/open-order-book';
import { RiskEngine } from '../../../src/risk/risk-engine';
import type { RiskLimits } from '../../../src/risk/risk-limits';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { InMemoryLeaseStore } from '../../../src/store/memory/in-memory-lease-store';
import { InMemoryOrderStore } from '../../../src/store/memory/in-memory-order-store';
import type { OrderRecord } from '../../../src/store/order-store-port';
import type { StampedIntent } from '../../../src/strategy/intent-validation';
import type { LoadedStrategy } from '../../../src/strategy/prepare-strategy';
import { StrategyHost } from '../../../src/strategy/strategy-host';
import type { OrderLogEntry } from '../../../src/backtest/replay/order-flow';
import { CandleFlow } from '../../../src/strategy/candle-flow';
import { settleBeforeCandle } from '../../../src/app/candle-settlement';
import { OrderFeedbackRecorder } from '../../../src/app/order-feedback-recorder';
import { createLogger } from '../../../src/log/logger';

export interface PaperFill { clientOrderId: string; side: string; price: Decimal; amount: Decimal; time: number }

/**
 * A paper run through the daemon's own execution path, for the parity test: buildExecution
 * (Executor + Settler + Reconciler + MarketCatalog + Readiness) with the in-memory journal and
 * leases, a LeaseKeeper, the RiskGate over the RiskEngine, the daemon's OpenOrderBook (the journal's
 * live orders) as the strategies' and the risk checks' view, and the real HttpExchangeClient against
 * the embedded simulator whose market clock the test drives one data minute at a time.
 *
 * Candles come through the daemon's CandleFlow (its kline poller, run at each strategy candle close
 * as the daemon's kline job) with the daemon's own step before the strategies, settleBeforeCandle:
 * the market's live orders settled with the exchange, the book refreshed, ctx.events/ctx.position
 * brought up to date. No reconciliation pass runs per candle: the daemon's real timing (its periodic
 * pass runs on a 30 s wall-clock timer, which this short run never reaches). The balances are polled
 * before each candle, standing in for the daemon's balance poller. Each intent goes through
 * `executor.submit` (book.note of its records, as the daemon's intent sink). The balance check reads
 * the trading and the collateral balance (OCO margin), as the daemon's pollers do. After each
 * submission they are polled again: the backtest sees the funds an order reserves at once, and the
 * next intent of the same candle is sized against them. Fills are read from the executed-deals
 * endpoint at the end.
 */
export async function paperRun(o: {
  sim: SimulatedExchange; client: HttpExchangeClient; strategies: readonly LoadedStrategy[]; market: string;
  interval: Interval; minutes: readonly number[]; risk?: RiskLimits;
}): Promise<{ orders: OrderLogEntry[]; fills: PaperFill[]; journal: InMemoryOrderStore }> {
  const { sim, client, market } = o;
  // Wall time for the journal, leases and in-flight windows (as the daemon); market time for risk and strategies.
  const wall = new SystemClock();
  const leaseStore = new InMemoryLeaseStore(wall);
  const store = new InMemoryOrderStore(leaseStore, wall);
  // One renewal-free run: a TTL far above the test's length.
  const leases = new LeaseKeeper({ store: leaseStore, owner: 'parity-paper', ttlMs: 3_600_000 });
  const book = new OpenOrderBook(store);
  let balances: Balances = {};
  let collateral: Readonly<Record<string, CollateralAssetBalance>> = {};
  let lastClose: Decimal | undefined;
  const feedbackErrors: unknown[] = [];
  const feedback = new OrderFeedbackRecorder(store, (err) => feedbackErrors.push(err));
  const exec = buildExecution({
    exchange: client, store, leases, leaseStore, owner: 'parity-paper', clock: wall, markets: [market], requestTimeoutMs: 5000, events: feedback,
    risk: new RiskGate(new RiskEngine({ limits: o.risk ?? {}, clock: sim.clock }), {
      lastPrice: () => lastClose, balances: () => balances, openOnMarket: (mk) => book.onMarket(mk),
    }),
    // As the daemon's collateral poller: an asset the answer does not list holds nothing.
    balances: { available: (cur, wallet) => (wallet === 'trading' ? balances[cur]?.available : (collateral[cur]?.availableWithoutBorrow ?? new Decimal(0))) },
  });
  for (const s of o.strategies) for (const mk of s.markets) leases.want(s.name, mk);
  await leases.tick();
  await exec.catalog.refresh();
  await exec.reconciler.runOnce(); // readiness: nothing is submitted before the first pass
  await book.refresh();

  const host = new StrategyHost({
    strategies: o.strategies, clock: sim.clock, timeBudgetMs: Number.POSITIVE_INFINITY,
    view: {
      balances: () => balances, openOrders: (s, mk) => book.of(s, mk), marketInfo: (mk) => exec.catalog.cached(mk),
      position: (s, mk, close) => feedback.feedback.position(s, mk, close), events: (s, mk) => feedback.feedback.take(s, mk),
    },
  });
  const orders: OrderLogEntry[] = [];
  const step = intervalSeconds(o.interval);

  // The collateral account is read only before an intent is checked (its budget is 100 requests per 10 s).
  let collateralStale = true;
  const submit = async (stamped: StampedIntent): Promise<void> => {
    const intent = stamped.intent;
    if (collateralStale) {
      collateral = await client.fetchCollateralBalanceSummary();
      collateralStale = false;
    }
    const time = sim.clock.nowMs() / 1000;
    const result = await exec.executor.submit(stamped);
    if (intent.kind === 'cancel') {
      const base = { time, candleTime: stamped.candleTime, strategy: stamped.strategy, market, kind: 'cancel' as const, clientOrderId: intent.clientOrderId };
      if (result.outcome === 'denied') orders.push({ ...base, outcome: 'denied', rule: result.rule });
      else if (result.outcome === 'existing' || result.outcome === 'canceled') orders.push({ ...base, outcome: result.outcome });
      else throw new Error(`cancel ${intent.clientOrderId} ended ${result.outcome}`);
    } else {
      const base = { time, candleTime: stamped.candleTime, strategy: stamped.strategy, market, kind: intent.kind, side: intent.side };
      if (result.outcome === 'denied') {
        orders.push({ ...base, clientOrderId: undefined, amount: intent.amount, price: intent.price, outcome: 'denied', rule: result.rule });
      } else {
        // The journal holds what was sent (rounded); an OCO's stop-loss leg carries the exchange's id.
        const sent = result.records.find((r) => r.kind !== 'oco_tp') as OrderRecord;
        const entry = {
          ...base, clientOrderId: exchangeClientOrderId(sent), amount: new Decimal(sent.amount), price: new Decimal(sent.price),
          activationPrice: dec(sent.activationPrice), stopLimitPrice: dec(sent.stopLimitPrice),
        };
        if (result.outcome === 'accepted') orders.push({ ...entry, outcome: 'placed' });
        else if (result.outcome === 'rejected') orders.push({ ...entry, outcome: 'rejected', rule: /^(TB_ERR_\w+)/.exec(result.reason)?.[1] ?? result.reason });
        else throw new Error(`order ${sent.clientOrderId} ended ${result.outcome}`);
      }
    }
    if (result.outcome !== 'denied') book.note(result.records);
    balances = await client.fetchTradingBalances();
    collateralStale = true;
  };

  const settle = settleBeforeCandle({
    reconciler: exec.reconciler, book, feedback,
    pollBalances: async () => { balances = await client.fetchTradingBalances(); collateralStale = true; },
  });
  const flow = new CandleFlow({
    host, client, clock: sim.clock, log: createLogger({ level: 'silent' }), klineDelayMs: 0, warmupFor: () => 1,
    beforeStrategies: async (mk) => {
      // CandleFlow logs a failure here and moves on (the daemon must not stop); the test must see it.
      await settle(mk).catch((err: unknown) => { feedbackErrors.push(err); });
      // The daemon's balance poller, run here at each candle so the run is deterministic.
      balances = await client.fetchTradingBalances();
      collateralStale = true;
    },
    hooks: { onCandle: (_mk, _iv, _close, close) => { lastClose = close; } },
    sink: { submit: async (intents) => { for (const stamped of intents) await submit(stamped); } },
  });
  const [job] = flow.jobs();
  if (job === undefined) throw new Error('no kline job');
  const signal = new AbortController().signal;
  for (const minute of o.minutes) {
    const close = minute + 60;
    sim.advanceTo(close);
    if (close % step !== 0) continue;
    await job.run({ signal } as Parameters<typeof job.run>[0]);
  }
  await exec.reconciler.runOnce();

  if (feedbackErrors.length > 0) throw new Error(`order feedback failed: ${String(feedbackErrors[0])}`);
  const fills: PaperFill[] = [];
  // OCO legs' deals carry no client order id at the venue: the journal knows their order ids.
  const idOf = new Map((await store.listAll(100_000)).flatMap((r) => (r.orderId === undefined ? [] : [[r.orderId, exchangeClientOrderId(r)] as const])));
  for (let offset = 0; ; offset += 100) {
    const page = await client.fetchExecutedDeals({ market, limit: 100, offset });
    fills.push(...page.map((d) => ({ clientOrderId: d.clientOrderId ?? idOf.get(d.orderId) ?? '', side: d.side, price: d.price, amount: d.amount, time: d.time })));
    if (page.length < 100) break;
  }
  fills.sort((a, b) => a.time - b.time);
  return { orders, fills, journal: store };
}

function dec(value: string | undefined): Decimal | undefined {
  return value === undefined ? undefined : new Decimal(value);
}
