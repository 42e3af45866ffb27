import type { Candle } from '../../../src/domain/candle';
import { Decimal } from '../../../src/domain/decimal';
import type { Intent } from '../../../src/domain/intent';
import type { GuestHost } from '../../../src/strategy/guest/guest-host';
import type { StampedIntent } from '../../../src/strategy/intent-validation';
import type { OrderEvent } from '../../../src/strategy/order-feedback';
import { VersionedHost, type SlotContext, type StrategyVersion } from '../../../src/strategy/versions/versioned-host';

/** A stand-in for one version's guest host: answers each candle with a stop-limit at close x `mult`. */
class FakeHost {
  readonly seen: number[] = [];
  readonly events: OrderEvent[][] = [];
  errors = 0;
  closed = false;
  pending: (() => void) | undefined;
  constructor(readonly mult: string, readonly ctx: SlotContext, readonly failStart?: string) {}
  start(): Promise<void> { return Promise.resolve(); }
  startWarmed(history: () => ReadonlyMap<string, readonly Candle[]>): Promise<string | undefined> {
    for (const c of history().get('BTC_USDT') ?? []) this.seen.push(-c.time);
    return Promise.resolve(this.failStart);
  }
  history(): ReadonlyMap<string, readonly Candle[]> { return new Map([['BTC_USDT', [candle(1), candle(2)]]]); }
  async handleCandle(market: string, _i: string, c: Candle): Promise<readonly StampedIntent[]> {
    this.seen.push(c.time);
    this.events.push([...this.ctx.events('s', market)]);
    const intent: Intent = { kind: 'stop_limit', market, side: 'buy', amount: new Decimal(1), price: c.close.times(this.mult), activationPrice: c.close.times(this.mult) };
    return [{ strategy: 's', interval: '1m', candleTime: c.time, intent }];
  }
  stats() { return { calls: 0, intents: 0, errors: this.errors, overruns: 0, consecutiveFailures: 0, paused: false }; }
  pause() {}
  resume() {}
  pausedAfterFailures() { return undefined; }
  isPaused() { return false; }
  close(): Promise<void> { this.closed = true; return Promise.resolve(); }
}

function candle(time: number): Candle {
  const p = new Decimal(100 + time);
  return { time, open: p, high: p, low: p, close: p, volume: new Decimal(1), volumeMoney: new Decimal(1) };
}

function version(v: string, mult: string, fail?: string): StrategyVersion & { mult: string; fail?: string | undefined } {
  return { strategy: { name: 's', markets: ['BTC_USDT'], interval: '1m', warmup: 1, window: 10, version: v }, dir: `/kept/${v}`, config: {}, mult, fail };
}

function setup() {
  const hosts = new Map<string, FakeHost>();
  let events: OrderEvent[] = [];
  const compared: { divergences: number; failed: boolean }[] = [];
  const roles: string[] = [];
  const host = new VersionedHost({
    live: [version('aaaaaaaaaaaa', '1')],
    hostFor: (v, ctx) => {
      const x = v as ReturnType<typeof version>;
      const h = new FakeHost(x.mult, ctx, x.fail);
      hosts.set(v.strategy.version, h);
      return h as unknown as GuestHost;
    },
    takeEvents: () => { const e = events; events = []; return e; },
    events: {
      onCompared: (e) => compared.push({ divergences: e.divergences.length, failed: e.shadowFailed }),
      onRoles: (e) => roles.push(`${e.live}/${e.shadow ?? '-'}`),
    },
  });
  return { host, hosts, compared, roles, emit: (e: OrderEvent) => events.push(e) };
}

const flush = () => new Promise((r) => setImmediate(r));

test('a shadow gets the same candles and order events as the live version, warmed from its history; only the live intents are returned', async () => {
  const { host, hosts, compared, emit } = setup();
  await host.start();
  expect(await host.stage(version('bbbbbbbbbbbb', '2'))).toBeUndefined();
  const live = hosts.get('aaaaaaaaaaaa')!;
  const shadow = hosts.get('bbbbbbbbbbbb')!;
  expect(shadow.seen).toEqual([-1, -2]); // warmed with the live host's kept candles
  emit({ type: 'filled' } as unknown as OrderEvent);
  const out = await host.handleCandle('BTC_USDT', '1m', candle(60));
  await flush();
  expect(out.map((x) => x.intent.kind === 'stop_limit' && x.intent.price.toString())).toEqual(['160']);
  expect(live.events).toEqual([[{ type: 'filled' }]]);
  expect(shadow.events).toEqual([[{ type: 'filled' }]]);
  expect(compared).toEqual([{ divergences: 1, failed: false }]);
  expect(host.status()[0]!.shadow!.summary.divergences.different).toBe(1);
});

test('promote swaps by target between candles and keeps the old version as the shadow; rollback is the same swap; a refused stage leaves everything as it was', async () => {
  const { host, hosts, roles } = setup();
  await host.start();
  expect(await host.stage(version('cccccccccccc', '3', 'module did not load: boom'))).toBe('module did not load: boom');
  expect(hosts.get('cccccccccccc')!.closed).toBe(true);
  expect(host.shadow('s')).toBeUndefined();
  await host.stage(version('bbbbbbbbbbbb', '2'));
  expect(host.promote('s', 'bbbbbbbbbbbb')).toEqual({ from: 'aaaaaaaaaaaa', to: 'bbbbbbbbbbbb' });
  // Asked again (a replica's sync after the local promotion): nothing changes.
  expect(host.promote('s', 'bbbbbbbbbbbb')).toEqual({ from: 'bbbbbbbbbbbb', to: 'bbbbbbbbbbbb' });
  const out = await host.handleCandle('BTC_USDT', '1m', candle(120));
  expect(out[0]!.intent.kind === 'stop_limit' && out[0]!.intent.price.toString()).toBe('440'); // 220 x 2: the new version trades
  expect(host.status()[0]).toMatchObject({ live: { version: 'bbbbbbbbbbbb' }, shadow: { version: 'aaaaaaaaaaaa' }, previous: ['aaaaaaaaaaaa'] });
  expect(() => host.promote('s', 'dddddddddddd')).toThrow(/not its shadow/);
  host.promote('s', 'aaaaaaaaaaaa');
  expect(host.live('s').strategy.version).toBe('aaaaaaaaaaaa');
  expect(roles).toEqual(['aaaaaaaaaaaa/-', 'aaaaaaaaaaaa/bbbbbbbbbbbb', 'bbbbbbbbbbbb/aaaaaaaaaaaa', 'aaaaaaaaaaaa/bbbbbbbbbbbb']);
});
