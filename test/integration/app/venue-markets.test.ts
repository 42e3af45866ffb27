import { createServer } from 'node:net';
import * as path from 'node:path';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';
import { DaemonProcess, paperConfig, requireBuild, ROOT, writeConfig } from './daemon-process';

/**
 * Issue #30: a strategy on a market the venue does not offer is refused by check-config and at the
 * daemon's start-up (exit 78, naming the strategy and the market), not found later by a kline error
 * (exit 1). Paper against the embedded simulator checks `paper.markets`; a running simulator and
 * live ask the venue's public market list, and say so when it cannot be reached.
 */
jest.setTimeout(60_000);

const SHIPPED = path.join(ROOT, 'strategies');
const CREDS = { TRADEBOT_API_KEY: 'vm-key', TRADEBOT_API_SECRET: 'vm-secret-0123456789' };
const onSol = { dir: SHIPPED, enabled: [{ name: 'sma-cross', markets: ['BTC_USDT', 'SOL_USDT'] }] };
const onBtc = { dir: SHIPPED, enabled: [{ name: 'sma-cross', markets: ['BTC_USDT'] }] };

let sim: SimulatedExchange | undefined;
beforeAll(async () => {
  requireBuild();
  sim = await startSimulatedExchange({ apiKey: CREDS.TRADEBOT_API_KEY, apiSecret: CREDS.TRADEBOT_API_SECRET, markets: [{ name: 'BTC_USDT' }], speed: 0 });
});
afterAll(async () => {
  await sim?.close();
});

/** A CLI command as an asynchronous child (the simulator answers from this process meanwhile). */
async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = new DaemonProcess(args, env);
  const { code } = await p.exit();
  return { code, stdout: p.lines.map((l) => l.msg).join('\n'), stderr: p.stderr };
}

function liveConfig(baseUrl: string, strategies: Record<string, unknown>): Record<string, unknown> {
  const { paper: _paper, ...rest } = paperConfig();
  return {
    ...rest, mode: 'live', exchange: { baseUrl, timeoutMs: 3000 }, redis: { url: 'redis://127.0.0.1:1' },
    strategies: { ...strategies, guestIsolation: 'thread', minGuestIsolation: 'thread' },
    risk: { defaults: { maxNotionalPerOrder: '1000', maxNotionalPerMarket: '3000' }, dailyLossLimit: '100', guardrails: { account: { drawdown: [{ max: '100', window: '24h' }] } } }, killSwitch: { enabled: true },
  };
}

test('paper with the embedded simulator: check-config and the daemon refuse a strategy market not in paper.markets (exit 78, naming it)', async () => {
  const cfg = writeConfig(paperConfig({ strategies: onSol }));
  const ok = writeConfig(paperConfig({ strategies: onBtc }));
  try {
    const check = await cli(['check-config', '--config', cfg.file], {});
    expect(check.code).toBe(78);
    expect(check.stderr).toContain('strategy sma-cross: SOL_USDT not offered by paper.markets (offered: BTC_USDT)');
    expect(check.stdout).toBe('');

    const daemon = new DaemonProcess(['run', '--config', cfg.file], {});
    const { code } = await daemon.exit();
    expect(code).toBe(78);
    const fatal = daemon.lines.find((l) => l.level === 'fatal');
    expect(fatal?.msg).toContain('TB_ERR_CONFIG');
    expect(fatal?.msg).toContain('strategy sma-cross: SOL_USDT not offered by paper.markets');
    expect(daemon.lines.some((l) => l.msg === 'tradebot started' || l.msg === 'strategies running')).toBe(false);

    const good = await cli(['check-config', '--config', ok.file], {});
    expect([good.code, good.stderr]).toEqual([0, '']);
    expect(good.stdout).toContain('  markets: BTC_USDT offered by paper.markets');
  } finally {
    cfg.cleanup();
    ok.cleanup();
  }
});

test('paper against a running simulator: the daemon refuses a market it does not list (exit 78, naming it)', async () => {
  const { paper: _paper, ...rest } = paperConfig({ strategies: onSol });
  const cfg = writeConfig({ ...rest, paper: { exchangeUrl: sim!.url } });
  try {
    const check = await cli(['check-config', '--config', cfg.file], CREDS);
    expect(check.code).toBe(78);
    expect(check.stderr).toContain(`strategy sma-cross: SOL_USDT not offered by the simulated exchange at ${sim!.url} (offered: BTC_USDT)`);

    const daemon = new DaemonProcess(['run', '--config', cfg.file], CREDS);
    const { code } = await daemon.exit();
    expect(code).toBe(78);
    const fatal = daemon.lines.find((l) => l.level === 'fatal');
    expect(fatal?.msg).toContain(`strategy sma-cross: SOL_USDT not offered by the simulated exchange at ${sim!.url}`);
    expect(daemon.lines.some((l) => l.msg === 'tradebot started')).toBe(false);
  } finally {
    cfg.cleanup();
  }
});

test('live: check-config asks the venue\'s market list; a market it lacks is refused, an unreachable venue is a WARNING, not a silent pass', async () => {
  const refused = writeConfig(liveConfig(sim!.url, onSol));
  const fine = writeConfig(liveConfig(sim!.url, onBtc));
  const port = await closedPort();
  const down = writeConfig(liveConfig(`http://127.0.0.1:${port}`, onSol));
  try {
    const r1 = await cli(['check-config', '--config', refused.file], CREDS);
    expect(r1.code).toBe(78);
    expect(r1.stderr).toContain(`strategy sma-cross: SOL_USDT not offered by the venue at ${sim!.url} (offered: BTC_USDT)`);
    expect(r1.stderr).not.toContain(CREDS.TRADEBOT_API_SECRET);

    const r2 = await cli(['check-config', '--config', fine.file], CREDS);
    expect([r2.code, r2.stderr]).toEqual([0, '']);
    expect(r2.stdout).toContain(`  markets: BTC_USDT offered by the venue at ${sim!.url}`);

    const r3 = await cli(['check-config', '--config', down.file], CREDS);
    expect(r3.code).toBe(0);
    expect(r3.stdout).toContain(`  WARNING markets: not checked: could not reach the venue at http://127.0.0.1:${port}`);
  } finally {
    refused.cleanup();
    fine.cleanup();
    down.cleanup();
  }
});

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
