import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { WsTestClient } from '../../helpers/ws-test-client';

// Needs `npm run build` first (npm test does it): runs the real CLI entry point.
const ROOT = join(__dirname, '..', '..', '..');
const MAIN = join(ROOT, 'dist', 'src', 'main.js');

test('tradebot sim-exchange: one "listening on" line, answers ping, exits 0 on SIGTERM', async () => {
  expect(existsSync(MAIN)).toBe(true);
  const child = spawn(process.execPath, [
    MAIN, 'sim-exchange', '--port', '0', '--api-key', 'cli-key',
    '--market', `BTC_USDT=${join(ROOT, 'config', 'data', 'btc_usdt-1m-sample.csv')}`, '--balance', 'USDT=10000,BTC=1', '--speed', '0',
    // The secret never goes on the command line (sim-exchange refuses --api-secret).
  ], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TRADEBOT_SIM_API_SECRET: 'cli-secret' } });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const lines = createInterface({ input: child.stdout });
  const output: string[] = [];
  const firstLine = new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => { output.push(line); if (output.length === 1) resolve(line); });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
  const line = await firstLine;
  expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
  const url = line.slice('listening on '.length);

  const ping = await fetch(`${url}/api/v4/public/ping`);
  expect(await ping.json()).toEqual(['pong']);
  const kline = await (await fetch(`${url}/api/v1/public/kline?market=BTC_USDT&interval=1m`)).json() as { success: boolean };
  expect(kline.success).toBe(true);

  // The WebSocket API on the same port at /ws; a connection still open at SIGTERM does not hold the exit.
  const ws = await WsTestClient.connect(`${url.replace('http://', 'ws://')}/ws`);
  expect(await ws.call('ping')).toEqual({ id: 1, result: 'pong', error: null });

  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const [code] = await exited;
  expect(code).toBe(0);
  expect(output).toEqual([line]);
  expect(stderr).toBe('');
  await ws.waitClosed();
}, 30_000);
