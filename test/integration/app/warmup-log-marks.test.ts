import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import { DaemonProcess, paperConfig, requireBuild, ROOT, type LogLine } from './daemon-process';

/**
 * The paper daemon's start-up warm-up, as an operator reads its log: every ctx.log line a strategy
 * writes on a warm-up candle carries `warmup: true`, the last warm-up candle's included (where a
 * strategy whose warm-up is the market's longest runs onCandle for the first time), and no line of a
 * live candle does. Two strategies on one market: warm-up 0 (sees every warm-up candle) and 4 (the
 * market's warm-up length: sees only the last one).
 */
jest.setTimeout(60_000);

const saw = (l: LogLine): boolean => l.msg === 'saw a candle';

let base: string;
let daemon: DaemonProcess | undefined;

beforeAll(() => {
  requireBuild();
  base = mkdtempSync(path.join(tmpdir(), 'tradebot-warmup-log-'));
  const dir = path.join(base, 'strategies');
  cpSync(path.join(ROOT, 'test/fixtures/warmup-log'), dir, { recursive: true });
  writeFileSync(path.join(base, 'config.yaml'), stringify(paperConfig({
    strategies: { dir, stateDir: path.join(base, 'state'), enabled: [{ name: 'chatty-all' }, { name: 'chatty-late' }] },
  })));
});

afterAll(async () => {
  await daemon?.kill();
  rmSync(base, { recursive: true, force: true });
});

test('warm-up lines, the last warm-up candle\'s included, carry warmup: true; live lines do not', async () => {
  daemon = new DaemonProcess(['run', '--config', path.join(base, 'config.yaml')], {});
  const d = daemon;
  const warmUp = await d.waitForLine((l) => l.msg === 'warm-up done' && l['market'] === 'BTC_USDT', 30_000, 'warm-up done');
  expect(warmUp['candles']).toBe(4);
  // A few live candles for each strategy after the warm-up (paper: a 1m candle every 0.1 s).
  await d.waitForLine(() => d.count((l) => saw(l) && l['strategy'] === 'chatty-late') >= 6, 30_000, 'live candles');
  await new Promise((r) => setTimeout(r, 300)); // guest log lines travel apart from the results

  const lines = d.lines.filter(saw).map((l) => ({ strategy: l['strategy'], t: (l['guest'] as { candleTime: number }).candleTime, warmup: l['warmup'] }));
  const times = [...new Set(lines.map((l) => l.t))].sort((a, b) => a - b);
  const warmTimes = new Set(times.slice(0, 4)); // warm-up is the first 4 candles the market delivered
  const lastWarm = times[3]!;

  // Each strategy saw each candle once: warm-up 0 from the first warm-up candle, warm-up 4 from the last.
  const of = (s: string): number[] => lines.filter((l) => l.strategy === s).map((l) => l.t);
  expect(of('chatty-all').slice(0, 4)).toEqual(times.slice(0, 4));
  expect(of('chatty-late')[0]).toBe(lastWarm);

  const wrong = lines.filter((l) => (l.warmup === true) !== warmTimes.has(l.t));
  expect(wrong).toEqual([]);
  expect(lines.filter((l) => l.t === lastWarm)).toEqual([
    expect.objectContaining({ warmup: true }),
    expect.objectContaining({ warmup: true }),
  ]);
  expect(lines.filter((l) => l.t > lastWarm).length).toBeGreaterThanOrEqual(8);
});
