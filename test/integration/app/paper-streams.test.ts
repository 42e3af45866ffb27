import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Redis from 'ioredis';
import { DaemonProcess, MAIN, paperConfig, requireBuild, ROOT, runCli, writeConfig, type LogLine } from './daemon-process';

/**
 * Paper mode with streams (the default `exchange.streams: all`), the daemon as a child process:
 * against the embedded simulator's WebSocket twin, and against a `tradebot sim-exchange` whose
 * fault switch drops every WebSocket connection every 1.5 s, where trading must go on.
 */
jest.setTimeout(120_000);

const REDIS_URL = process.env['TRADEBOT_TEST_REDIS_URL']!;
const PREFIX = `tbtest-app-streams-${process.pid}-${Date.now()}`;
const msg = (m: string) => (l: LogLine): boolean => l.msg === m;

let daemon: DaemonProcess | undefined;
let sim: ChildProcess | undefined;
let redis: Redis;
const cleanups: (() => void)[] = [];

beforeAll(() => {
  requireBuild();
  redis = new Redis(REDIS_URL);
});

afterEach(async () => {
  await daemon?.kill();
  daemon = undefined;
  sim?.kill('SIGTERM');
  sim = undefined;
});

afterAll(async () => {
  const keys = await redis.keys(`${PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  for (const c of cleanups) c();
});


async function metricsOf(d: DaemonProcess): Promise<string> {
  const port = d.lines.find(msg('metrics server listening'))!['port'] as number;
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

function value(text: string, series: RegExp): number {
  const m = series.exec(text);
  return m === null ? 0 : Number(m[1]);
}

test('npm start\'s paper mode trades with streams: the account stream is healthy and carries the fills', async () => {
  const config = writeConfig(paperConfig());
  cleanups.push(config.cleanup);
  daemon = new DaemonProcess(['run', '--config', config.file], { TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: `${PREFIX}-a` });
  await daemon.waitForLine(msg('tradebot started'), 30_000, 'start');
  await daemon.waitForLine(msg('order filled'), 30_000, 'a fill');
  const d = daemon;
  await d.waitForLine((l) => l.msg === 'stream healthy: its pushes are used' && l['stream'] === 'account', 10_000, 'account stream healthy');
  await d.waitForLine((l) => l.msg === 'stream healthy: its pushes are used' && l['stream'] === 'market:BTC_USDT:1m', 10_000, 'market stream healthy');
  let text = await metricsOf(d);
  for (let i = 0; i < 100 && value(text, /tradebot_stream_messages_total\{stream="market:BTC_USDT:1m",method="candles_update"\} (\d+)/) === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    text = await metricsOf(d);
  }
  expect(text).toMatch(/tradebot_stream_healthy\{stream="account"\} 1/);
  expect(value(text, /tradebot_stream_messages_total\{stream="account",method="ordersPending_update"\} (\d+)/)).toBeGreaterThan(0);
  expect(value(text, /tradebot_stream_messages_total\{stream="market:BTC_USDT:1m",method="candles_update"\} (\d+)/)).toBeGreaterThan(0);
  expect(value(text, /tradebot_stream_invalid_messages_total\{stream="account"\} (\d+)/)).toBe(0);

  // `tradebot status` shows the streams.
  const port = d.lines.find(msg('metrics server listening'))!['port'] as number;
  const env = { TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: `${PREFIX}-a` };
  const report = JSON.parse(runCli(['status', '--config', config.file, '--url', `http://127.0.0.1:${port}`, '--json'], env).stdout) as { streams: { stream: string; healthy: boolean; messages: number }[] };
  expect(report.streams).toEqual(expect.arrayContaining([
    expect.objectContaining({ stream: 'account', healthy: true }),
    expect.objectContaining({ stream: 'market:BTC_USDT:1m', healthy: true }),
  ]));
  const human = runCli(['status', '--config', config.file, '--url', `http://127.0.0.1:${port}`], env).stdout;
  expect(human).toMatch(/streams \(unhealthy = on REST polling\)\n.*account\s+healthy/);

  // A clean stop closes the streams itself: that is not a stream going unhealthy.
  const before = d.lines.length;
  d.signal('SIGTERM');
  expect((await d.exit()).code).toBe(0);
  const stopLines = d.lines.slice(before);
  expect(stopLines.some(msg('stopped cleanly'))).toBe(true);
  expect(stopLines.filter(msg('stream unhealthy: REST polling'))).toEqual([]);
});

test('a simulator that drops every WebSocket connection every 1.5 s does not stop trading', async () => {
  sim = spawn(process.execPath, [
    MAIN, 'sim-exchange', '--port', '0', '--api-key', 'streams-key',
    '--market', `BTC_USDT=${path.join(ROOT, 'config', 'data', 'btc_usdt-1m-sample.csv')}`, '--balance', 'USDT=100000,BTC=1',
    '--speed', '600', '--ws-drop-every-ms', '1500',
  ], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TRADEBOT_SIM_API_SECRET: 'streams-secret' } });
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: sim!.stdout! });
    lines.on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m !== null) resolve(m[1]!);
    });
    sim!.once('exit', (code) => reject(new Error(`sim-exchange exited with ${code}`)));
  });
  const config = writeConfig(paperConfig({ paper: { exchangeUrl: url } }));
  cleanups.push(config.cleanup);
  daemon = new DaemonProcess(['run', '--config', config.file], {
    TRADEBOT_REDIS_URL: REDIS_URL, TRADEBOT_REDIS_PREFIX: `${PREFIX}-b`, TRADEBOT_API_KEY: 'streams-key', TRADEBOT_API_SECRET: 'streams-secret',
  });
  const d = daemon;
  await d.waitForLine(msg('tradebot started'), 30_000, 'start');
  await d.waitForLine(msg('order filled'), 30_000, 'a first fill');
  await d.waitForLine((l) => l.msg === 'stream reconnecting' && l['stream'] === 'account' && d.count((x) => x.msg === 'stream reconnecting' && x['stream'] === 'account') >= 2, 20_000, 'two account reconnects');
  const fills = d.count(msg('order filled'));
  await d.waitForLine(() => d.count(msg('order filled')) > fills + 1, 30_000, 'fills after the drops');
  // A reconnect is logged before its resync is done: under load the second resync can still be in flight.
  let text = await metricsOf(d);
  for (let i = 0; i < 40 && value(text, /tradebot_stream_resyncs_total\{stream="account"\} (\d+)/) < 2; i++) {
    await new Promise((r) => setTimeout(r, 250));
    text = await metricsOf(d);
  }
  expect(value(text, /tradebot_stream_reconnects_total\{stream="account"\} (\d+)/)).toBeGreaterThanOrEqual(2);
  expect(value(text, /tradebot_stream_resyncs_total\{stream="account"\} (\d+)/)).toBeGreaterThanOrEqual(2);
  d.signal('SIGTERM');
  expect((await d.exit()).code).toBe(0);
});
