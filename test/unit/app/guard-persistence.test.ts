import { Registry } from 'prom-client';
import pino from 'pino';
import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { DaemonEventBus, type DaemonEvent } from '../../../src/domain/daemon-event';
import { createMetrics } from '../../../src/metrics/registry';
import { Portfolio } from '../../../src/portfolio/portfolio';
import { Guardrails } from '../../../src/risk/guardrails/guardrails';
import { NO_GUARDRAILS, type GuardrailSettings } from '../../../src/risk/guardrails/guard-rules';
import { InMemoryGuardStateStore } from '../../../src/store/guard-state-store';
import { GuardPersistence } from '../../../src/app/guard-wiring';
import type { DaemonContext } from '../../../src/app/daemon-context';

const D = (v: string | number): Decimal => new Decimal(v);
const H = 3_600_000;
const SETTINGS: GuardrailSettings = { ...NO_GUARDRAILS, strategyDefaults: { drawdown: [{ max: D(10), release: 'operator' }], cooldown: [] } };

/** One replica: its portfolio, guardrails and persistence over a store shared with the others. */
function replica(store: InMemoryGuardStateStore, trades: { now: boolean }) {
  const clock = new ManualClock(0);
  const events: DaemonEvent[] = [];
  const bus = new DaemonEventBus();
  bus.subscribe((e) => events.push(e));
  const ctx = { metrics: createMetrics(new Registry(), { defaultMetrics: false }), wallClock: clock, events: bus } as unknown as DaemonContext;
  const portfolio = new Portfolio(clock);
  let guards: Guardrails | undefined;
  const persistence = new GuardPersistence(ctx, store, () => guards, pino({ level: 'silent' }), () => trades.now);
  guards = new Guardrails(SETTINGS, portfolio, persistence.observer());
  persistence.open();
  return { portfolio, guards, persistence, events };
}

const sleep = (): Promise<void> => new Promise((r) => setTimeout(r, 10));

test('only the replica that trades saves and speaks; a standby that takes over trades under the saved stops', async () => {
  const store = new InMemoryGuardStateStore();
  const activeTrades = { now: true };
  const standbyTrades = { now: false };
  const active = replica(store, activeTrades);
  const standby = replica(store, standbyTrades);
  // The active replica loses 20 on its position: its drawdown stop trips and is saved.
  active.portfolio.applyFill({ strategy: 's', market: 'BTC_USDT', side: 'buy', amount: D(1), price: D(100), fee: D(0) });
  active.guards.mark('BTC_USDT', D(100), H);
  active.guards.mark('BTC_USDT', D(80), 2 * H);
  await sleep();
  expect(active.events.map((e) => e.type)).toEqual(['guardrail']);
  // The standby never saw that fill: it marks flat equity, says nothing and writes nothing.
  standby.guards.mark('BTC_USDT', D(80), 2 * H);
  await sleep();
  expect(standby.events).toEqual([]);
  expect(JSON.parse((await store.load()) ?? '{}').latches).toHaveLength(1);
  expect(standby.guards.latches()).toEqual([]);
  // The active one dies; the standby takes its first lease: it reads the stop before it trades.
  activeTrades.now = false;
  standbyTrades.now = true;
  standby.persistence.takeOver();
  await sleep();
  expect(standby.guards.latches().map((l) => [l.guard, l.scope])).toEqual([['strategy_drawdown', 's']]);
});
