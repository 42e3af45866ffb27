import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import { TradingStateControl } from '../../../src/trading-state/trading-state-control';
import { RiskEngine } from '../../../src/risk/risk-engine';
import { FileTradingStateStore } from '../../../src/trading-state/file-trading-state-store';
import { InMemoryTradingStateStore, isLater, parseTradingState, type TradingStateStore } from '../../../src/trading-state/trading-state-store';

const log = pino({ level: 'silent' });
const engine = (initial: 'active' | 'halted' | 'reducing' = 'active') => new RiskEngine({ limits: {}, initialState: initial });
const HOUR = 3_600_000;

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

test('records are ordered by the store\'s seq, not by clocks: a pause stamped an hour behind the last applied record is applied', async () => {
  const store = new InMemoryTradingStateStore();
  const now = Date.now();
  await store.write({ state: 'active', reason: 'resumed from a host with a good clock', atMs: now });
  const e = engine('halted');
  const control = new TradingStateControl(e, store, log, 'test:1');
  await control.init('halted');
  expect(e.tradingState).toBe('active');
  // The old code compared atMs and dropped this record.
  const at = await store.write({ state: 'halted', reason: 'slow clock', atMs: now - HOUR });
  await control.sync();
  expect(e.tradingState).toBe('halted');
  expect(control.appliedPosition).toEqual(at);
  // Applied once: a later sync does not re-apply it (the engine keeps a change made meanwhile by a halt).
  await control.sync();
  expect((await store.readReplicas()).map((r) => [r.instance, r.appliedSeq, r.state])).toEqual([['test:1', at.seq, 'halted']]);
});

test('the daemon may only halt by itself; a halt takes the store\'s next seq, and a later operator record wins over it', async () => {
  const store = new InMemoryTradingStateStore();
  const e = engine();
  const control = new TradingStateControl(e, store, log);
  await control.init('active');
  await control.set('halted', 'signal SIGUSR1');
  expect(e.tradingState).toBe('halted');
  expect(await store.read()).toMatchObject({ state: 'halted', reason: 'signal SIGUSR1', seq: 1 });
  // The daemon cannot loosen the state by itself: not a DaemonTradingState, and refused at run time too.
  await expect(control.set('active' as never, 'SIGUSR2')).rejects.toThrow('only halt');
  expect(e.tradingState).toBe('halted');
  expect((await store.read())?.seq).toBe(1);
  await store.write({ state: 'active', reason: 'operator resume', atMs: 0 });
  await control.sync();
  expect(e.tradingState).toBe('active');
});

test('a halt that could not be stored is applied at once and stored at the next poll', async () => {
  const inner = new InMemoryTradingStateStore();
  let down = true;
  const flaky: TradingStateStore = {
    read: () => inner.read(),
    write: (c) => (down ? Promise.reject(new Error('store down')) : inner.write(c)),
    reportApplied: (r) => inner.reportApplied(r),
    readReplicas: () => inner.readReplicas(),
  };
  const e = engine();
  const control = new TradingStateControl(e, flaky, log);
  await control.init('active');
  await control.set('halted', 'exchange clock 90 s off');
  expect(e.tradingState).toBe('halted');
  expect(await inner.read()).toBeUndefined();
  down = false;
  await control.sync();
  expect(await inner.read()).toMatchObject({ state: 'halted', reason: 'exchange clock 90 s off', seq: 1 });
  expect(e.tradingState).toBe('halted');
});

test('a store that started over (another epoch) is applied even with a smaller seq', () => {
  expect(isLater({ seq: 1, epoch: 'b' }, { seq: 57, epoch: 'a' })).toBe(true);
  expect(isLater({ seq: 56, epoch: 'a' }, { seq: 57, epoch: 'a' })).toBe(false);
  expect(isLater({ seq: 58, epoch: 'a' }, { seq: 57, epoch: 'a' })).toBe(true);
});

describe('the file store (paper without Redis)', () => {
  let dir: string;
  beforeEach(() => { dir = mkdtempSync(path.join(tmpdir(), 'tb-trading-state-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('counts seq in the file, keeps its epoch, survives a new store object (restart) and reports replicas', async () => {
    const a = new FileTradingStateStore(dir);
    const first = await a.write({ state: 'halted', reason: 'pause', atMs: Date.now() });
    const second = await new FileTradingStateStore(dir).write({ state: 'active', reason: 'resume', atMs: Date.now() - HOUR });
    expect(second).toEqual({ seq: first.seq + 1, epoch: first.epoch });
    expect(await a.read()).toMatchObject({ state: 'active', reason: 'resume', seq: 2, epoch: first.epoch });
    await a.reportApplied({ instance: 'host:42', epoch: first.epoch, appliedSeq: 2, state: 'active', atMs: 0 });
    const replicas = await new FileTradingStateStore(dir).readReplicas();
    expect(replicas).toEqual([expect.objectContaining({ instance: 'host:42', appliedSeq: 2, state: 'active' })]);
    expect(replicas[0]!.ageMs).toBeLessThan(5000);
  });

  test('concurrent writers never get the same seq', async () => {
    const seqs = await Promise.all(Array.from({ length: 20 }, (_, i) => new FileTradingStateStore(dir).write({ state: i % 2 === 0 ? 'halted' : 'active', reason: `w${i}`, atMs: 0 })));
    expect(new Set(seqs.map((s) => s.seq)).size).toBe(20);
    expect((await new FileTradingStateStore(dir).read())?.seq).toBe(20);
  });

  test('a damaged file is an error, never a guessed state', async () => {
    writeFileSync(path.join(dir, 'trading-state.json'), '{"state": "halt');
    await expect(new FileTradingStateStore(dir).read()).rejects.toThrow('is not a trading-state record');
    // ...and it does not block a pause: the record starts over in a new epoch, which a daemon applies.
    const store = new FileTradingStateStore(dir);
    expect(await store.write({ state: 'halted', reason: 'pause', atMs: 0 })).toMatchObject({ seq: 1, epoch: expect.any(String) });
    expect(await store.read()).toMatchObject({ state: 'halted', seq: 1 });
  });
});

test('state names accept the CLI spellings', () => {
  expect(parseTradingState('reduce-only')).toBe('reducing');
  expect(parseTradingState('paused')).toBe('halted');
  expect(() => parseTradingState('sleeping')).toThrow('unknown trading state');
});
