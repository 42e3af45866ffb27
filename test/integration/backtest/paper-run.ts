import { SystemClock } from '../../../src/core/clock';
import { intervalSeconds, type Interval } from '../../../src/domain/candle';
import type { Decimal } from '../../../src/domain/decimal';
import type { ExchangeClient } from '../../../src/exchange/exchange-client';
import { exchangeClientOrderId } from '../../../src/execution/journal/oco-ids';
import { TradingKernel } from '../../../src/execution/kernel/trading-kernel';
import type { PositionState } from '../../../src/portfolio/portfolio';
import type { RiskLimits } from '../../../src/risk/risk-limits';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import type { InMemoryOrderStore } from '../../../src/store/memory/in-memory-order-store';
import type { LoadedStrategy } from '../../../src/strategy/prepare-strategy';
import { StrategyHost } from '../../../src/strategy/strategy-host';
import { orderLogEntry, type OrderLogEntry } from '../../../src/backtest/replay/order-log';
import { CandleFlow } from '../../../src/strategy/candle-flow';
import { createLogger } from '../../../src/log/logger';

export interface PaperFill { clientOrderId: string; side: string; price: Decimal; amount: Decimal; time: number }

/**
 * A paper run for the parity test: the daemon's trading kernel (Executor + Settler + Reconciler +
 * MarketCatalog + Readiness over the in-memory journal and leases, the RiskGate over the RiskEngine,
 * the OpenOrderBook, the order feedback and the portfolio) against the embedded simulator whose market
 * clock the test drives one data minute at a time, through `client`: the real HttpExchangeClient over
 * loopback, or the InProcessExchange over the same simulator's engine.
 *
 * Candles come through the daemon's CandleFlow (its kline poller, run at each strategy candle close
 * as the daemon's kline job) with the daemon's own step before the strategies (the market's live
 * orders settled with the exchange, the book refreshed, ctx.events/ctx.position brought up to date).
 * No reconciliation pass runs per candle: the daemon's real timing (its periodic pass runs on a 30 s
 * wall-clock timer, which this short run never reaches). The balances are polled before each candle,
 * standing in for the daemon's balance poller, and after each submission (the backtest sees the funds
 * an order reserves at once, and the next intent of the same candle is sized against them). Fills are
 * read from the executed-deals endpoint at the end.
 */
export async function paperRun(o: {
  sim: SimulatedExchange; client: ExchangeClient; strategies: readonly LoadedStrategy[]; market: string;
  interval: Interval; minutes: readonly number[]; risk?: RiskLimits;
}): Promise<{ orders: OrderLogEntry[]; fills: PaperFill[]; journal: InMemoryOrderStore; positions: readonly PositionState[] }> {
  const { sim, client, market } = o;
  let lastClose: Decimal | undefined;
  const feedbackErrors: unknown[] = [];
  // Wall time for the journal, leases and in-flight windows (as the daemon); market time for risk and strategies.
  const kernel = new TradingKernel({
    exchange: client, strategies: o.strategies, risk: o.risk ?? {}, marketClock: sim.clock, wallClock: new SystemClock(),
    lastPrice: () => lastClose, onFeedbackError: (err) => feedbackErrors.push(err),
  });
  await kernel.start();

  const feedback = kernel.feedback.feedback;
  const host = new StrategyHost({
    strategies: o.strategies, clock: sim.clock, timeBudgetMs: Number.POSITIVE_INFINITY,
    view: {
      balances: () => kernel.balances(), openOrders: (s, mk) => kernel.book.of(s, mk), marketInfo: (mk) => kernel.exec.catalog.cached(mk),
      position: (s, mk, close) => feedback.position(s, mk, close), events: (s, mk) => feedback.take(s, mk),
    },
  });
  const orders: OrderLogEntry[] = [];
  const step = intervalSeconds(o.interval);
  const flow = new CandleFlow({
    host, client, clock: sim.clock, log: createLogger({ level: 'silent' }), klineDelayMs: 0, warmupFor: () => 1,
    beforeStrategies: async (mk) => {
      // CandleFlow logs a failure here and moves on (the daemon must not stop); the test must see it.
      await kernel.settle(mk).catch((err: unknown) => { feedbackErrors.push(err); });
      // The daemon's balance poller, run here at each candle so the run is deterministic.
      kernel.invalidateBalances();
      await kernel.freshBalances();
    },
    hooks: { onCandle: (_mk, _iv, _close, close) => { lastClose = close; } },
    sink: {
      submit: async (intents) => {
        for (const stamped of intents) {
          const time = sim.clock.nowMs() / 1000;
          orders.push(orderLogEntry(stamped, await kernel.submit(stamped), time));
        }
      },
    },
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
  await kernel.exec.reconciler.runOnce();

  if (feedbackErrors.length > 0) throw new Error(`order feedback failed: ${String(feedbackErrors[0])}`);
  // A deal of an OCO leg carries no client order id (as on the venue): the journal knows its order id.
  const byOrderId = new Map((await kernel.journal.listAll(100_000)).filter((r) => r.orderId !== undefined).map((r) => [r.orderId, exchangeClientOrderId(r)]));
  const fills: PaperFill[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await client.fetchExecutedDeals({ market, limit: 100, offset });
    fills.push(...page.map((d) => ({
      clientOrderId: d.clientOrderId !== undefined && d.clientOrderId !== '' ? d.clientOrderId : byOrderId.get(d.orderId) ?? '',
      side: d.side, price: d.price, amount: d.amount, time: d.time,
    })));
    if (page.length < 100) break;
  }
  fills.sort((a, b) => a.time - b.time);
  return { orders, fills, journal: kernel.journal, positions: kernel.portfolio.states() };
}
