import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { parseConfig } from '../../../src/config/load';
import { createLogger } from '../../../src/log/logger';
import { abandonReason, describeOpen, droppedMarkets, type OpenOnMarket, type OpenOnMarkets } from '../../../src/strategy-control/dropped-markets';
import { FileStrategyControlStore } from '../../../src/strategy-control/file-control-store';
import { VersionControl } from '../../../src/strategy-control/version-control';
import type { StrategyVersion, VersionedHost, VersionedStrategy } from '../../../src/strategy/versions/versioned-host';

/** Reload never abandons (issue #29, finding 6): the rule, and promote/rollback refusing by it. */

const flat = (market: string): OpenOnMarket => ({ market, orders: [], position: '0' });

describe('the rule', () => {
  test('dropped markets are those the old version trades and the new one does not', () => {
    expect(droppedMarkets(['BTC_USDT', 'ETH_USDT'], ['ETH_USDT', 'SOL_USDT'])).toEqual(['BTC_USDT']);
    expect(droppedMarkets(['BTC_USDT'], ['BTC_USDT', 'ETH_USDT'])).toEqual([]);
  });

  test('open orders or a non-zero position (either sign) block; flat markets do not', () => {
    expect(abandonReason('s', 'v2', [flat('BTC_USDT'), { market: 'ETH_USDT', orders: [], position: '0.000' }])).toBeUndefined();
    const orders = abandonReason('s', 'v2', [{ market: 'BTC_USDT', orders: ['c-1', 'c-2'], position: '0' }, flat('ETH_USDT')])!;
    expect(orders).toContain('version v2 of s no longer trades BTC_USDT, where s has BTC_USDT: 2 open orders c-1, c-2:');
    expect(orders).not.toContain('ETH_USDT');
    expect(abandonReason('s', 'v2', [{ market: 'ETH_USDT', orders: [], position: '-0.5' }])).toContain('ETH_USDT: a position of -0.5');
    expect(describeOpen({ market: 'M', orders: ['a'], position: '1' })).toBe('M: open order a and a position of 1');
    const many = describeOpen({ market: 'M', orders: Array.from({ length: 12 }, (_, i) => `c${i}`), position: '0' });
    expect(many).toBe('M: 12 open orders c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 and 2 more');
  });
});

/** A host holding one strategy's live and shadow versions: only what promote/rollback use. */
function fakeHost(live: VersionedStrategy, shadow: VersionedStrategy | undefined): VersionedHost & { swapped: string[] } {
  const v = (s: VersionedStrategy): StrategyVersion => ({ strategy: s, dir: '/nowhere', config: {} });
  let l = live;
  let sh = shadow;
  const swapped: string[] = [];
  const host = {
    swapped,
    strategyNames: () => [live.name],
    live: () => v(l),
    shadow: () => (sh === undefined ? undefined : v(sh)),
    shadowStats: () => undefined,
    status: () => [{ strategy: live.name, live: { version: l.version, markets: l.markets, params: {} }, previous: [sh?.version ?? ''] }],
    promote: (_name: string, version: string) => {
      const from = l;
      l = sh!;
      sh = from;
      swapped.push(version);
      return { from: from.version, to: version };
    },
  };
  return host as unknown as VersionedHost & { swapped: string[] };
}

const strategy = (version: string, markets: string[]): VersionedStrategy => ({ name: 'keeper', version, markets, interval: '1m', warmup: 1 } as unknown as VersionedStrategy);

describe('promote and rollback', () => {
  let dir: string;
  let lines: Record<string, unknown>[];
  beforeEach(() => { dir = mkdtempSync(path.join(tmpdir(), 'tb-dropped-')); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function control(host: VersionedHost, open: Record<string, OpenOnMarket> | OpenOnMarkets): VersionControl {
    lines = [];
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => { for (const l of chunk.toString('utf8').split('\n')) if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>); });
    const config = parseConfig({ mode: 'paper', paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '1' } }, strategies: { enabled: [{ name: 'keeper' }] } }, {});
    return new VersionControl({
      host, store: new FileStrategyControlStore(path.join(dir, 'control')), config, readConfig: () => config,
      strategyDir: () => dir, describe: async () => ({ strategies: [], errors: [] }), configFor: () => ({}), stateDir: dir,
      openOn: typeof open === 'function' ? open : async (_s, markets) => markets.map((m) => open[m] ?? flat(m)),
      log: createLogger({ level: 'info', destination: stream }), clock: { nowMs: () => 1 },
    });
  }

  test('a promote whose shadow drops a market with an open order is refused, naming the strategy, market and order; nothing is stored or swapped', async () => {
    const host = fakeHost(strategy('aaaaaa', ['BTC_USDT', 'ETH_USDT']), strategy('bbbbbb', ['ETH_USDT']));
    const c = control(host, { BTC_USDT: { market: 'BTC_USDT', orders: ['1700000000-o'], position: '0.002' } });
    const reply = await c.handle({ id: 'r1', command: 'promote', strategy: 'keeper', atMs: 1 });
    expect(reply.ok).toBe(false);
    expect(reply.message).toContain('refused (keeper): version bbbbbb of keeper no longer trades BTC_USDT, where keeper has BTC_USDT: open order 1700000000-o and a position of 0.002');
    expect(host.swapped).toEqual([]);
    expect(await new FileStrategyControlStore(path.join(dir, 'control')).readPromoted()).toEqual({});
    await new Promise((r) => setImmediate(r));
    const refused = lines.find((l) => l['msg'] === 'strategy change refused: the running version keeps trading')!;
    expect(refused['strategy']).toBe('keeper');
    expect(refused['dropped']).toEqual(['BTC_USDT']);
  });

  test('a promote that drops a market with nothing open is accepted, and the log says so', async () => {
    const host = fakeHost(strategy('aaaaaa', ['BTC_USDT', 'ETH_USDT']), strategy('bbbbbb', ['ETH_USDT']));
    const c = control(host, {});
    const reply = await c.handle({ id: 'r2', command: 'promote', strategy: 'keeper', atMs: 1 });
    expect([reply.ok, host.swapped]).toEqual([true, ['bbbbbb']]);
    await new Promise((r) => setImmediate(r));
    expect(lines.find((l) => l['msg'] === 'strategy version drops market(s) with nothing open there: accepted')).toMatchObject({ strategy: 'keeper', dropped: ['BTC_USDT'], from: 'aaaaaa', to: 'bbbbbb' });
  });

  test('a rollback to a version without a market where the strategy now holds a position is refused too', async () => {
    // Live bbbbbb trades both; the kept previous version (the shadow) traded ETH_USDT only.
    const host = fakeHost(strategy('bbbbbb', ['BTC_USDT', 'ETH_USDT']), strategy('aaaaaa', ['ETH_USDT']));
    const c = control(host, { BTC_USDT: { market: 'BTC_USDT', orders: [], position: '-1' } });
    const reply = await c.handle({ id: 'r3', command: 'rollback', strategy: 'keeper', atMs: 1 });
    expect(reply.ok).toBe(false);
    expect(reply.message).toContain('BTC_USDT: a position of -1');
    expect(host.swapped).toEqual([]);
  });

  test('a journal that cannot be read refuses the change instead of judging it blind', async () => {
    const host = fakeHost(strategy('aaaaaa', ['BTC_USDT', 'ETH_USDT']), strategy('bbbbbb', ['ETH_USDT']));
    const c = control(host, () => Promise.reject(new Error('TB_ERR_STORE_UNAVAILABLE')));
    const reply = await c.promote('keeper', 'auto-promote');
    expect(reply.ok).toBe(false);
    expect(reply.message).toContain('could not be read (TB_ERR_STORE_UNAVAILABLE)');
    expect(host.swapped).toEqual([]);
  });
});
