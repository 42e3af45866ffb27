import pino from 'pino';
import { TradingStateControl } from '../../../src/trading-state/trading-state-control';
import { RiskEngine } from '../../../src/risk/risk-engine';
import { InMemoryTradingStateStore, parseTradingState } from '../../../src/trading-state/trading-state-store';

const log = pino({ level: 'silent' });
const engine = (initial: 'active' | 'halted' | 'reducing' = 'active') => new RiskEngine({ limits: {}, initialState: initial });

test('at start the stored state wins over the config (a restart keeps the operator\'s choice); the config applies when nothing is stored', async () => {
  const store = new InMemoryTradingStateStore();
  await store.write({ state: 'halted', reason: 'ops', atMs: 1 });
  const e = engine();
  await new TradingStateControl(e, store, log).init('active');
  expect(e.tradingState).toBe('halted');

  // A live config that says "start halted" (the shipped k8s ConfigMap) does not undo an operator's resume.
  for (const stored of ['active', 'reducing'] as const) {
    const s = new InMemoryTradingStateStore();
    await s.write({ state: stored, reason: 'resumed after checks', atMs: 1 });
    const e2 = engine('halted');
    await new TradingStateControl(e2, s, log).init('halted');
    expect(e2.tradingState).toBe(stored);
  }

  // Nothing stored (first start, or Redis lost its data): the config's initial state.
  const e3 = engine();
  await new TradingStateControl(e3, new InMemoryTradingStateStore(), log).init('halted');
  expect(e3.tradingState).toBe('halted');
});

test('sync applies only records written after the last one applied', async () => {
  const store = new InMemoryTradingStateStore();
  await store.write({ state: 'active', reason: 'old', atMs: 10 });
  const e = engine();
  const control = new TradingStateControl(e, store, log);
  await control.init('reducing');
  await control.sync();
  expect(e.tradingState).toBe('active'); // restored at init, and not applied twice
  await store.write({ state: 'halted', reason: 'pause', atMs: 20 });
  await control.sync();
  expect(e.tradingState).toBe('halted');
  await control.set('active', 'SIGUSR2', 30);
  expect(e.tradingState).toBe('active');
  expect((await store.read())?.state).toBe('active');
});

test('state names accept the CLI spellings', () => {
  expect(parseTradingState('reduce-only')).toBe('reducing');
  expect(parseTradingState('paused')).toBe('halted');
  expect(() => parseTradingState('sleeping')).toThrow('unknown trading state');
});
