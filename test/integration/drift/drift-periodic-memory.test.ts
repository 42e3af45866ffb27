import { DaemonProcess, paperConfig, requireBuild, runCli, writeConfig, type LogLine } from '../app/daemon-process';

/**
 * `npm start`'s setting: paper mode with the embedded simulator and no Redis (records in the daemon's
 * memory). The periodic drift check still runs in a child process: the daemon writes the window's
 * records to a file the child reads (`tradebot drift --records`), and the report reaches /metrics.
 */
jest.setTimeout(120_000);

let running: DaemonProcess | undefined;
beforeAll(() => requireBuild());
afterEach(async () => { await running?.kill(); });

test('paper without Redis: the periodic drift check runs in a child process and its report is on /metrics', async () => {
  const base = paperConfig();
  const cfg = writeConfig({
    ...base,
    // speed 600: a market minute is 0.1 s; a check every 30 market minutes over the last 20.
    drift: { intervalMinutes: 30, windowMinutes: 20 },
  });
  try {
    running = new DaemonProcess(['run', '--config', cfg.file], {});
    const port = Number((await running.waitForLine((l: LogLine) => l.msg === 'metrics server listening', 30_000))['port']);
    // A check whose window is clipped to the first minute of records (it can tick right after the start,
    // on a loaded machine before the first order) has nothing to match: wait for one over 10 market minutes.
    const done = await running.waitForLine((l) => l.msg === 'drift check done' && Number(l['to']) - Number(l['from']) >= 600, 60_000, 'a periodic drift check over 10 market minutes');
    console.log(`periodic drift check without Redis: ${JSON.stringify(done)}`);
    expect(done['to']).toBeGreaterThan(Number(done['from']));
    expect(done['unexplained']).toBe(0);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^tradebot_drift_checks_total\{verdict="(ok|drift)"\} [1-9]/m);
    expect(metrics).toMatch(/^tradebot_drift_matched\{strategy="churn"\} [1-9]/m);
    expect(metrics).toMatch(/^tradebot_drift_last_check_timestamp_seconds [1-9]/m);
    expect(running.lines.filter((l) => l.msg === 'drift check failed')).toEqual([]);
    running.signal('SIGTERM');
    expect((await running.exit()).code).toBe(0);
  } finally {
    cfg.cleanup();
  }
});

test('npm start\'s own config: three example strategies sharing the account, every periodic check finds nothing unexplained', async () => {
  // config/paper.yaml as shipped (a check every 30 market minutes over the last 60), at 120x instead of 60x.
  running = new DaemonProcess(['run', '--config', 'config/paper.yaml'], { TRADEBOT_PAPER_SPEED: '120', TRADEBOT_METRICS_PORT: '0', TRADEBOT_LOG_LEVEL: 'info' });
  const checks = (): LogLine[] => running!.lines.filter((l) => l.msg === 'drift check done');
  await running.waitForLine(() => checks().length >= 2, 90_000, 'two periodic drift checks');
  console.log(`npm start drift checks: ${checks().map((c) => `${String(c['from'])}..${String(c['to'])} unexplained ${String(c['unexplained'])} ${JSON.stringify(c['first'] ?? [])}`).join('; ')}`);
  expect(checks().map((c) => c['unexplained'])).toEqual([0, 0]);
  expect(running.count((l) => l.msg === 'drift check failed')).toBe(0);
  expect(running.count((l) => l.msg === 'order filled')).toBeGreaterThan(0);
  running.signal('SIGTERM');
  expect((await running.exit()).code).toBe(0);
});

test('tradebot drift refuses unknown flags, stray arguments and bad values, naming them', () => {
  const env = { TRADEBOT_CONFIG: 'config/paper.yaml' };
  const unknown = runCli(['drift', '--from', '1', '--to', '2', '--bogus'], env);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("unknown option '--bogus'");
  expect(runCli(['drift', '--from', '1', '--to', '2', 'extra'], env).stderr).toContain('too many arguments');
  const bad = runCli(['drift', '--from', '1', '--to', '2', '--max-unexplained', 'x'], env);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('--max-unexplained must be a whole number');
  expect(runCli(['drift', '--from', 'yesterday', '--to', '2'], env).stderr).toContain('--from: "yesterday" is neither Unix seconds nor an ISO date');
});
