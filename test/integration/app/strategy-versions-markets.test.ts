import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';
import { DaemonProcess, paperConfig, requireBuild, runCli, type LogLine } from './daemon-process';

/**
 * Reload never abandons (issue #29, finding 6), end to end: a paper daemon (child process) whose
 * strategy keeps a resting order on BTC_USDT; a reload whose new config drops BTC_USDT is refused,
 * naming the strategy, the market and the order, and the running version keeps trading; dropping
 * ETH_USDT while nothing is open there is accepted (and logged); once an order rests on ETH_USDT,
 * promoting that shadow is refused the same way.
 */
jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '../../..');
const msg = (m: string) => (l: LogLine): boolean => l.msg === m;
const submitted = (market: string) => (l: LogLine): boolean => l.msg === 'order submitted' && l['market'] === market;
const REFUSED = 'strategy change refused: the running version keeps trading';

// BTC_USDT: keeps one buy resting 4 % above the market (inside the price band, never triggers).
// ETH_USDT: the same, but only from its `ethAfter`-th candle on, so an order appears there after the test's reloads.
const KEEPER = `
const { Decimal, z } = require('tradebot/strategy');
let ethSeen = 0;
module.exports = {
  name: 'keeper',
  markets: ['BTC_USDT', 'ETH_USDT'],
  interval: '1m',
  warmup: 1,
  params: z.object({ ethAfter: z.number().int().min(1).default(1) }),
  onCandle(ctx) {
    if (ctx.market === 'ETH_USDT') ethSeen++;
    ctx.log.info({ market: ctx.market, t: ctx.candle.time, open: ctx.openOrders.length }, 'seen');
    const wants = ctx.market === 'BTC_USDT' || ethSeen >= ctx.params.ethAfter;
    if (!wants || ctx.openOrders.length > 0) return [];
    const close = ctx.candle.close;
    return [{
      kind: 'stop_limit', market: ctx.market, side: 'buy', amount: new Decimal(ctx.market === 'BTC_USDT' ? '0.001' : '0.01'), purpose: 'entry',
      activationPrice: close.times('1.04').toDecimalPlaces(2), price: close.times('1.045').toDecimalPlaces(2),
    }];
  },
};
`;

let daemon: DaemonProcess | undefined;
let dir: string;
let config: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(path.join(tmpdir(), 'tradebot-versions-markets-'));
  const strategies = path.join(dir, 'strategies');
  mkdirSync(strategies);
  writeFileSync(path.join(strategies, 'keeper.js'), KEEPER);
  config = path.join(dir, 'config.yaml');
  writeFileSync(config, stringify(paperConfig({
    paper: {
      speed: 60, // one 1m candle a second: time for the reloads before ETH_USDT's order
      markets: [
        { market: 'BTC_USDT', data: path.join(ROOT, 'config/data/btc_usdt-1m-sample.csv') },
        { market: 'ETH_USDT', data: path.join(ROOT, 'config/data/eth_usdt-1m-sample.csv') },
      ],
      balances: { USDT: '100000', BTC: '1', ETH: '10' },
    },
    strategies: { dir: strategies, stateDir: path.join(dir, 'state'), enabled: [{ name: 'keeper', markets: ['BTC_USDT', 'ETH_USDT'], params: { ethAfter: 40 } }] },
  })));
});
afterAll(async () => {
  await daemon?.kill();
  rmSync(dir, { recursive: true, force: true });
});

function markets(list: string[]): void {
  const c = parse(readFileSync(config, 'utf8')) as { strategies: { enabled: { markets: string[] }[] } };
  c.strategies.enabled[0]!.markets = list;
  writeFileSync(config, stringify(c));
}

test('a reload or promote that would abandon a market with an open order is refused, naming it; dropping a market with nothing open is accepted', async () => {
  daemon = new DaemonProcess(['run', '--config', config], {});
  const d = daemon;
  await d.waitForLine(msg('tradebot started'), 30_000, 'start');
  const btcOrder = (await d.waitForLine(submitted('BTC_USDT'), 30_000, 'the resting BTC_USDT order'))['clientOrderId'] as string;
  expect(d.count(submitted('ETH_USDT'))).toBe(0);

  // 1. The new config drops BTC_USDT, where the order rests: refused, to the CLI caller and in the log.
  markets(['ETH_USDT']);
  const refused = runCli(['reload', '--config', config], {});
  expect(refused.code).toBe(1);
  expect(refused.stdout).toContain('refused (keeper): ');
  expect(refused.stdout).toContain('no longer trades BTC_USDT, where keeper has BTC_USDT: open order');
  expect(refused.stdout).toContain(btcOrder);
  const line = await d.waitForLine(msg(REFUSED), 5000, 'the refusal in the log');
  expect(line['strategy']).toBe('keeper');
  expect(line['dropped']).toEqual(['BTC_USDT']);
  expect(line['reason']).toContain(btcOrder);
  expect(d.count(msg('strategy reloaded: new version runs as a shadow (its intents are recorded, not sent)'))).toBe(0);

  // 2. Dropping ETH_USDT, where nothing is open yet: accepted as a shadow, and the log says what was dropped.
  expect(d.count(submitted('ETH_USDT'))).toBe(0);
  markets(['BTC_USDT']);
  const accepted = runCli(['reload', '--config', config], {});
  expect([accepted.code, accepted.stdout]).toEqual([0, expect.stringContaining('runs as the shadow')]);
  expect(await d.waitForLine(msg('strategy version drops market(s) with nothing open there: accepted'), 5000, 'the accepted drop in the log')).toMatchObject({ strategy: 'keeper', dropped: ['ETH_USDT'] });

  // 3. The live version still trades ETH_USDT; once its order rests there, promoting the shadow is refused.
  const ethOrder = (await d.waitForLine(submitted('ETH_USDT'), 90_000, 'the resting ETH_USDT order'))['clientOrderId'] as string;
  const promote = runCli(['promote', 'keeper', '--config', config], {});
  expect(promote.code).toBe(1);
  expect(promote.stdout).toContain('no longer trades ETH_USDT, where keeper has ETH_USDT: open order');
  expect(promote.stdout).toContain(ethOrder);
  expect(d.count(msg('strategy version promoted'))).toBe(0);
  // ... and the live version keeps getting both markets' candles.
  const seenEth = d.count((l) => l.msg === 'seen' && (l['guest'] as { market?: string } | undefined)?.market === 'ETH_USDT');
  await d.waitForLine(() => d.count((l) => l.msg === 'seen' && (l['guest'] as { market?: string } | undefined)?.market === 'ETH_USDT') >= seenEth + 2, 15_000, 'ETH_USDT candles after the refusal');

  d.signal('SIGTERM');
  expect((await d.exit()).code).toBe(0);
});
