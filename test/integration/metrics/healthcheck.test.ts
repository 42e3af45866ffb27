import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { startMetricsServer, type MetricsServer } from '../../../src/metrics/server';
import { execForm, parseDockerfile } from '../../unit/deploy/dockerfile-parse';

// Runs the Dockerfile's HEALTHCHECK command as written against a real metrics server: there is no
// Docker engine here, but the command is plain node and must exit 0 on 200 and 1 otherwise.
const dockerfile = readFileSync(join(__dirname, '../../../Dockerfile'), 'utf8');
const healthcheck = parseDockerfile(dockerfile).find((i) => i.keyword === 'HEALTHCHECK');
const command = execForm(healthcheck?.args.replace(/^.*?CMD\s+/, '') ?? '') ?? [];

function runHealthcheck(port: number): Promise<number> {
  const [file = 'node', ...args] = command;
  return new Promise((resolve) => {
    const child = execFile(file === 'node' ? process.execPath : file, args, {
      env: { ...process.env, TRADEBOT_CONFIG__METRICS__PORT: String(port) },
      timeout: 10_000,
    });
    child.on('exit', (code) => resolve(code ?? -1));
  });
}

describe('Dockerfile HEALTHCHECK', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => server?.close());

  it('exits 0 while /healthz answers 200 and 1 when it does not', async () => {
    let alive = true;
    server = await startMetricsServer({ registry: new Registry(), port: 0, host: '127.0.0.1', liveness: () => alive });
    expect(await runHealthcheck(server.port)).toBe(0);
    alive = false;
    expect(await runHealthcheck(server.port)).toBe(1);
    const port = server.port;
    await server.close();
    server = undefined;
    expect(await runHealthcheck(port)).toBe(1);
  });
});
