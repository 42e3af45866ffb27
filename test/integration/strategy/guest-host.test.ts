import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import type { Candle } from '../../../src/domain/candle';
import { GuestHost } from '../../../src/strategy/guest/guest-host';
import { loadStrategies } from '../../../src/strategy/strategy-loader';
import type { VersionRole } from '../../../src/strategy/versions/versioned-host';
import { roleTaggedLogger } from '../../../src/app/role-tagged-logger';
import { componentLogger, createLogger } from '../../../src/log/logger';
import { CaptureStream } from '../../unit/log/capture';

// Guests in real child processes under Node's permission model (the TypeScript entry through sucrase
// under Jest; the daemon runs the compiled one): a spinner, process.exit and a heap bomb end only their own guest, are counted,
// paused, restarted and re-warmed; the steady strategy keeps trading through all of it.
const DIR = 'test/fixtures/guests';
const candle = (i: number): Candle => {
  const p = new Decimal(40_000 + i);
  return { time: 1_700_000_000 + i * 60, open: p, high: p, low: p, close: p, volume: new Decimal(1), volumeMoney: p };
};

describe('GuestHost', () => {
  test('hostile guests affect only themselves', async () => {
    const loaded = loadStrategies(DIR);
    expect(loaded.errors.map((e) => e.context['file'])).toEqual([expect.stringMatching(/importer\.ts$/)]);
    const names = ['steady', 'spinner', 'exiter', 'heap-bomb', 'secret-reader', 'fs-reader'];
    const secretFile = path.join(mkdtempSync(path.join(tmpdir(), 'tradebot-guest-secret-')), 'api-secret');
    writeFileSync(secretFile, 'guest-test-secret-file-0042', { mode: 0o600 });
    const strategies = loaded.strategies.filter((s) => names.includes(s.name));
    const logs: string[] = [];
    const restarts: string[] = [];
    const paused: string[] = [];
    process.env['TRADEBOT_API_SECRET'] = 'guest-test-secret-4711';
    const log = { debug: () => {}, info: () => {}, warn: (o: unknown) => logs.push(JSON.stringify(o)), error: () => {} };
    const host = new GuestHost({
      strategies, dir: DIR, configFor: (name) => (name === 'fs-reader' ? { params: { secretFile } } : {}), clock: new ManualClock(0), timeBudgetMs: 500, maxConsecutiveFailures: 3, heapMb: 32, startMs: 60_000, // TypeScript guests transpile the daemon's sources at start
      logger: { ...log, child: () => log },
      events: { onRestart: (e) => restarts.push(e.strategy), onPaused: (e) => paused.push(e.strategy) },
    });
    try {
      await host.start();
      let steadyIntents = 0;
      for (let i = 0; i < 8; i++) {
        const intents = await host.handleCandle('BTC_USDT', '1m', candle(i));
        steadyIntents += intents.filter((x) => x.strategy === 'steady').length;
        await new Promise((r) => setTimeout(r, 300)); // restarts run in the background
      }
      expect(steadyIntents).toBeGreaterThanOrEqual(8);
      expect(host.stats('steady').errors).toBe(0);
      for (const name of ['spinner', 'exiter', 'heap-bomb']) {
        expect(host.stats(name).errors).toBeGreaterThan(0);
        expect(restarts).toContain(name);
        expect(paused).toContain(name);
      }
      expect(host.stats('spinner').overruns).toBeGreaterThan(0);
      expect(logs.some((l) => l.includes('"found":"nothing"'))).toBe(true);
      expect(logs.join('\n')).not.toContain('guest-test-secret-4711');
      // fs in a process guest: its environment, the daemon's and the secret file are all refused.
      const hunt = logs.find((l) => l.includes('"self"'));
      expect(hunt === undefined ? undefined : JSON.parse(hunt)).toEqual({ guest: { self: 'refused: ERR_ACCESS_DENIED', parent: 'refused: ERR_ACCESS_DENIED', secretFile: 'refused: ERR_ACCESS_DENIED' } });
      expect(logs.join('\n')).not.toContain('guest-test-secret-file-0042');
    } finally {
      delete process.env['TRADEBOT_API_SECRET'];
      rmSync(path.dirname(secretFile), { recursive: true, force: true });
      await host.close();
    }
  }, 60_000);
});

describe('GuestHost batches', () => {
  test('candles that arrive while a guest works go in one message, each answered for its own market and candle', async () => {
    const dir = 'test/fixtures/guests-batch';
    const batches: number[] = [];
    const host = new GuestHost({
      strategies: loadStrategies(dir).strategies, dir, configFor: () => ({}), clock: new ManualClock(0), timeBudgetMs: 5_000,
      events: { onBatch: (e) => batches.push(e.candles) },
    });
    const markets = ['BTC_USDT', 'ETH_USDT', 'LTC_USDT'];
    const at = (i: number, m: number): Candle => {
      const p = new Decimal(100 * (m + 1) + i);
      return { time: 1_700_000_000 + i * 60, open: p, high: p, low: p, close: p, volume: new Decimal(1), volumeMoney: p };
    };
    try {
      await host.start();
      for (let i = 0; i < 4; i++) {
        // As the daemon's kline jobs of one candle close: all markets at once, not awaited one by one.
        const answers = await Promise.all(markets.map((m, k) => host.handleCandle(m, '1m', at(i, k))));
        answers.forEach((intents, k) => {
          expect(intents).toHaveLength(1);
          const x = intents[0]!;
          expect([x.candleTime, x.intent.market, x.intent.kind === 'stop_limit' ? x.intent.price.toString() : '']).toEqual([at(i, k).time, markets[k], at(i, k).close.toString()]);
        });
      }
      expect(batches.reduce((a, b) => a + b, 0)).toBe(12);
      // The first market of a close goes at once; the other two wait for it and go together.
      expect(batches.length).toBeLessThan(12);
      expect(Math.max(...batches)).toBeGreaterThan(1);
      expect(host.stats('echo')).toMatchObject({ calls: 12, intents: 12, errors: 0 });
    } finally {
      await host.close();
    }
  }, 60_000);
});

describe('GuestHost log lines', () => {
  test('warm-up lines carry warmup: true, live ones do not; a shadow version\'s lines carry role shadow until it is live', async () => {
    const dir = 'test/fixtures/guests-log';
    const out = new CaptureStream();
    let role: VersionRole = 'shadow';
    const host = new GuestHost({
      strategies: loadStrategies(dir).strategies, dir, configFor: () => ({}), clock: new ManualClock(0), timeBudgetMs: 5_000,
      logger: roleTaggedLogger(componentLogger(createLogger({ destination: out }), 'strategy'), () => role),
    });
    const saw = (): Record<string, unknown>[] => out.lines().filter((l) => l['msg'] === 'saw a candle');
    try {
      // A shadow starts warmed from another version's history: every line of that replay is warm-up.
      expect(await host.startWarmed(() => new Map([['BTC_USDT', [candle(0), candle(1)]]]))).toBeUndefined();
      await host.handleCandle('BTC_USDT', '1m', candle(2));
      role = 'live'; // promoted
      await host.handleCandle('BTC_USDT', '1m', candle(3));
      await new Promise((r) => setTimeout(r, 200)); // log messages travel apart from results
      const lines = saw().map((l) => ({ t: (l['guest'] as { candleTime: number }).candleTime - 1_700_000_000, warmup: l['warmup'], role: l['role'] }));
      expect(lines).toEqual([
        { t: 0, warmup: true, role: 'shadow' },
        { t: 60, warmup: true, role: 'shadow' },
        { t: 120, warmup: undefined, role: 'shadow' },
        { t: 180, warmup: undefined, role: undefined },
      ]);
    } finally {
      await host.close();
    }
  }, 30_000);
});
