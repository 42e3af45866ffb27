import { candleOpenTime, intervalSeconds, type Interval } from '../../../src/domain/candle';
import type { Decimal } from '../../../src/domain/decimal';
import { ExchangeRejectedError } from '../../../src/domain/errors';
import type { Balances, MarketInfo } from '../../../src/domain/market';
import type { HttpExchangeClient } from '../../../src/exchange/http/client';
import { prepareOrder } from '../../../src/execution/prepare-order';
import { RiskEngine } from '../../../src/risk/risk-engine';
import type { RiskLimits } from '../../../src/risk/risk-limits';
import type { SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import type { StampedIntent } from '../../../src/strategy/intent-validation';
import type { OpenOrderView } from '../../../src/strategy/open-order';
import type { LoadedStrategy } from '../../../src/strategy/prepare-strategy';
import { StrategyHost } from '../../../src/strategy/strategy-host';
import { RiskGate } from '../../../src/execution/risk-gate';
import type { OrderLogEntry } from '../../../src/backtest/replay/order-flow';

/**
 * A paper-style run, for the parity test: the simulated exchange over HTTP with its market clock
 * driven by the test, one data minute at a time. At each strategy candle close the run polls the
 * kline endpoint for the closed candle, the trading balances and the open orders (active orders +
 * active OCOs), hands the candle to a StrategyHost, and sends each intent through the executor's
 * order flow over HttpExchangeClient: risk (RiskEngine via RiskGate) -> prepareOrder (rounding, size,
 * balance) -> placeStopLimit / placeOco / cancelOrder / cancelOco with the deterministic client order
 * id. Fills are read back from the executed-deals endpoint at the end.
 */
export async function paperRun(o: {
  sim: SimulatedExchange; client: HttpExchangeClient; strategies: readonly LoadedStrategy[]; market: string;
  interval: Interval; minutes: readonly number[]; risk?: RiskLimits;
}): Promise<{ orders: OrderLogEntry[]; fills: { clientOrderId: string; side: string; price: Decimal; amount: Decimal; time: number }[] }> {
  const { sim, client, market } = o;
  const info = (await client.fetchMarkets()).find((m) => m.name === market) as MarketInfo;
  const journal = new Map<string, OpenOrderView>();
  let balances: Balances = {};
  let openIds = new Set<string>();
  let lastClose: Decimal | undefined;
  const openViews = (): OpenOrderView[] => [...journal.values()].filter((v) => openIds.has(v.clientOrderId));
  const risk = new RiskEngine({ limits: o.risk ?? {}, clock: sim.clock });
  const gate = new RiskGate(risk, { lastPrice: () => lastClose, balances: () => balances, openOnMarket: () => openViews() });
  const host = new StrategyHost({
    strategies: o.strategies, clock: sim.clock, timeBudgetMs: Number.POSITIVE_INFINITY,
    view: { balances: () => balances, openOrders: (s) => openViews().filter((v) => v.strategy === s), marketInfo: () => info },
  });
  const orders: OrderLogEntry[] = [];
  const step = intervalSeconds(o.interval);

  const refresh = async (): Promise<void> => {
    balances = await client.fetchTradingBalances();
    const active = await client.fetchActiveOrders({ market, limit: 100 });
    const ocos = await client.fetchActiveOcoOrders({ market, limit: 100 });
    openIds = new Set([...active.map((r) => r.clientOrderId ?? ''), ...ocos.map((r) => r.stopLoss.clientOrderId ?? '')]);
  };

  const submit = async (stamped: StampedIntent): Promise<void> => {
    const intent = stamped.intent;
    const now = sim.clock.nowMs() / 1000;
    if (intent.kind === 'cancel') {
      const base = { time: now, candleTime: stamped.candleTime, strategy: stamped.strategy, market, kind: 'cancel' as const, clientOrderId: intent.clientOrderId };
      const view = journal.get(intent.clientOrderId);
      if (view === undefined || view.strategy !== stamped.strategy) return void orders.push({ ...base, outcome: 'denied', rule: 'cancel_unknown' });
      if (!openIds.has(intent.clientOrderId)) return void orders.push({ ...base, outcome: 'existing' });
      orders.push({ ...base, outcome: 'canceled' });
      const ref = { market, clientOrderId: intent.clientOrderId };
      await (view.kind === 'oco' ? client.cancelOco(ref) : client.cancelOrder(ref));
      return;
    }
    const base = { time: now, candleTime: stamped.candleTime, strategy: stamped.strategy, market, kind: intent.kind, side: intent.side };
    const verdict = gate.check(stamped, info);
    if (!verdict.ok) return void orders.push({ ...base, clientOrderId: undefined, amount: intent.amount, price: intent.price, outcome: 'denied', rule: verdict.rule });
    const prepared = prepareOrder(stamped, info, { available: (cur, wallet) => (wallet === 'trading' ? balances[cur]?.available : undefined) });
    if (!prepared.ok) return void orders.push({ ...base, clientOrderId: undefined, amount: intent.amount, price: intent.price, outcome: 'denied', rule: prepared.rule });
    const sent = prepared.order.intent;
    const cid = prepared.order.sentClientOrderId;
    const stopLimitPrice = sent.kind === 'oco' ? sent.stopLimitPrice : undefined;
    const entry = { ...base, clientOrderId: cid, amount: sent.amount, price: sent.price, activationPrice: sent.activationPrice, stopLimitPrice };
    journal.set(cid, {
      clientOrderId: cid, strategy: stamped.strategy, market, side: sent.side, kind: sent.kind, amount: sent.amount, price: sent.price,
      activationPrice: sent.activationPrice, stopLimitPrice, purpose: sent.purpose, candleTime: stamped.candleTime,
    });
    try {
      if (sent.kind === 'stop_limit') {
        await client.placeStopLimit({ market, side: sent.side, amount: sent.amount, price: sent.price, activationPrice: sent.activationPrice, clientOrderId: cid });
      } else {
        await client.placeOco({ market, side: sent.side, amount: sent.amount, price: sent.price, activationPrice: sent.activationPrice, stopLimitPrice: sent.stopLimitPrice, clientOrderId: cid });
      }
      orders.push({ ...entry, outcome: 'placed' });
    } catch (err) {
      if (!(err instanceof ExchangeRejectedError)) throw err;
      journal.delete(cid);
      orders.push({ ...entry, outcome: 'rejected', rule: err.code });
    }
    // What the executor's pollers would show next: the order (or its immediate fill) and its funds.
    await refresh();
  };

  for (const minute of o.minutes) {
    const close = minute + 60;
    sim.advanceTo(close);
    if (close % step !== 0) continue;
    const open = candleOpenTime(o.interval, close - step);
    const [candle] = await client.fetchCandles({ market, interval: o.interval, start: open, end: open, limit: 1 });
    if (candle === undefined || candle.time !== open) continue;
    lastClose = candle.close;
    await refresh();
    const intents = await host.handleCandle(market, o.interval, candle);
    for (const stamped of intents) await submit(stamped);
  }

  const fills = [];
  for (let offset = 0; ; offset += 100) {
    const page = await client.fetchExecutedDeals({ market, limit: 100, offset });
    fills.push(...page.map((d) => ({ clientOrderId: d.clientOrderId ?? '', side: d.side, price: d.price, amount: d.amount, time: d.time })));
    if (page.length < 100) break;
  }
  fills.sort((a, b) => a.time - b.time);
  return { orders, fills };
}
