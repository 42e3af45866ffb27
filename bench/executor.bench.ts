import { performance } from 'node:perf_hooks';
import { SystemClock } from '../src/core/clock';
import { Decimal } from '../src/domain/decimal';
import type { OcoReport, OrderReport } from '../src/domain/order';
import { buildExecution, type Execution, type ExecutionExchange } from '../src/execution/kernel/build-execution';
import { LeaseKeeper } from '../src/execution/guards/lease-keeper';
import { ALLOW_ALL } from '../src/execution/orders/risk-port';
import type { PlaceOcoRequest, PlaceStopLimitRequest } from '../src/exchange/exchange-client';
import { simMarketInfo } from '../src/simulator/sim-markets';
import type { LeaseStore } from '../src/store/lease-store-port';
import { InMemoryLeaseStore } from '../src/store/memory/in-memory-lease-store';
import { InMemoryOrderStore } from '../src/store/memory/in-memory-order-store';
import type { OrderStore } from '../src/store/order-store-port';
import type { StampedIntent } from '../src/strategy/intent-validation';
import type { BenchRow } from './bench-types';

const MARKET = 'BTC_USDT';
const zero = new Decimal(0);

/**
 * An ExchangeClient slice that answers at once, in process: every order is accepted and rests.
 * `beforeSend` lets a caller add per-request work (the round-trip bench adds the Redis nonce and
 * rate-limit token a real client takes).
 */
export class InstantExchange implements ExecutionExchange {
  private nextId = 1;
  constructor(private readonly beforeSend: () => Promise<void> = async () => undefined) {}

  async fetchMarkets() {
    return [simMarketInfo(MARKET)];
  }
  async placeStopLimit(r: PlaceStopLimitRequest): Promise<OrderReport> {
    await this.beforeSend();
    return this.report(r, 'stop limit', new Decimal(String(r.activationPrice)));
  }
  async placeOco(r: PlaceOcoRequest): Promise<OcoReport> {
    await this.beforeSend();
    return { id: this.nextId++, stopLoss: this.report(r, 'margin stop limit', new Decimal(String(r.activationPrice))), takeProfit: this.report(r, 'margin limit', undefined) };
  }
  async cancelOrder(): Promise<OrderReport> {
    throw new Error('not used');
  }
  async cancelOco(): Promise<OcoReport> {
    throw new Error('not used');
  }
  async fetchActiveOrders() {
    return [];
  }
  async fetchActiveOcoOrders() {
    return [];
  }
  async fetchOrderHistory() {
    return [];
  }
  private report(r: PlaceStopLimitRequest | PlaceOcoRequest, type: string, activationPrice: Decimal | undefined): OrderReport {
    const amount = new Decimal(String(r.amount));
    return {
      orderId: this.nextId++, clientOrderId: r.clientOrderId, market: r.market, side: r.side, type, timestamp: Date.now() / 1000,
      amount, left: amount, dealStock: zero, dealMoney: zero, dealFee: zero, price: new Decimal(String(r.price)), activationPrice,
      activationCondition: activationPrice === undefined ? undefined : r.side === 'buy' ? 'gte' : 'lte',
      activated: activationPrice === undefined ? undefined : false, status: 'OPEN',
    };
  }
}

export function benchIntent(i: number, strategy = 'bench'): StampedIntent {
  return {
    strategy, interval: '1m', candleTime: 1_700_000_000 + i * 60,
    intent: { kind: 'stop_limit', market: MARKET, side: 'buy', amount: new Decimal('0.1'), price: new Decimal('105.5'), activationPrice: new Decimal('105') },
  };
}

/** A ready execution (leases held, first reconciliation done) on the given store. */
export async function readyExecution(exchange: ExecutionExchange, store: OrderStore, leaseStore: LeaseStore, strategy = 'bench'): Promise<Execution> {
  const clock = new SystemClock();
  const keeper = new LeaseKeeper({ store: leaseStore, owner: 'bench', ttlMs: 600_000 });
  keeper.want(strategy, MARKET);
  await keeper.tick();
  const execution = buildExecution({ exchange, store, leases: keeper, risk: ALLOW_ALL, clock, markets: [MARKET], requestTimeoutMs: 1000 });
  await execution.reconciler.runOnce();
  return execution;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

/**
 * Executor overhead per order without network: risk (allow-all) + market lookup (cached) + rounding +
 * journal (in-memory store, same record code as Redis) + the instant exchange + outcome journaled.
 */
export async function run(): Promise<BenchRow[]> {
  const clock = new SystemClock();
  const leases = new InMemoryLeaseStore(clock);
  const store = new InMemoryOrderStore(leases, clock);
  const execution = await readyExecution(new InstantExchange(), store, leases);
  const WARMUP = 2000;
  const N = 20_000;
  for (let i = 0; i < WARMUP; i++) await execution.executor.submit(benchIntent(i));
  const times: number[] = [];
  const started = performance.now();
  for (let i = WARMUP; i < WARMUP + N; i++) {
    const t = performance.now();
    const result = await execution.executor.submit(benchIntent(i));
    times.push(performance.now() - t);
    if (result.outcome !== 'accepted') throw new Error(`unexpected outcome ${result.outcome}`);
  }
  const total = performance.now() - started;
  times.sort((a, b) => a - b);
  const us = (ms: number): number => Math.round(ms * 1000);
  return [
    { name: 'executor submit p50 (stop-limit, in-memory store, instant exchange)', value: us(percentile(times, 0.5)), unit: 'µs' },
    { name: 'executor submit p99', value: us(percentile(times, 0.99)), unit: 'µs', note: 'goal p99 < 1000 µs' },
    { name: 'executor submit max', value: us(times[times.length - 1] ?? 0), unit: 'µs' },
    { name: 'executor throughput (sequential)', value: Math.round((N / total) * 1000), unit: 'orders/s', note: `${N} orders` },
  ];
}
