import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { parseDockerfile } from './dockerfile-parse';
import { scanCommandText, scanDockerfile, scanKubernetesObject, scanPm2Apps } from './process-file-scan';

/**
 * Issue #29 finding 9: no secret on any command line or in a stored environment value, in every
 * process file of the repository (pm2, Kubernetes, Dockerfile) and every command the docs show.
 */
const root = join(__dirname, '../../..');
const read = (p: string): string => readFileSync(join(root, p), 'utf8');
const filesIn = (dir: string, ext: string): string[] =>
  (readdirSync(join(root, dir), { recursive: true }) as string[]).filter((f) => f.endsWith(ext)).map((f) => join(dir, f)).sort();
type Obj = Record<string, unknown>;

const pm2Files = ['ecosystem.config.js', ...filesIn('deploy/pm2', '.js')];
const k8sFiles = filesIn('deploy/k8s', '.yaml');
const docFiles = ['README.md', ...filesIn('docs', '.md'), ...filesIn('deploy', '.md')];

describe('the scanner finds what it looks for', () => {
  test('pm2: a secret flag in args, a secret variable or a password URL in env', () => {
    expect(scanPm2Apps('f.js', [{ name: 'sim', script: 'dist/src/main.js', args: ['sim-exchange', '--api-secret', 's'] }]))
      .toEqual(['f.js app sim: --api-secret puts a secret on the command line']);
    expect(scanPm2Apps('f.js', [{ name: 'sim', args: 'sim-exchange --api-secret=s' }])).toHaveLength(1);
    expect(scanPm2Apps('f.js', [{ name: 'd', env_live: { TRADEBOT_API_SECRET: 'x', TRADEBOT_QUEUE_REDIS_URL: 'redis://:pw@h:6379' } }])).toEqual([
      'f.js app d env_live: TRADEBOT_API_SECRET is a secret in pm2\'s stored environment; use TRADEBOT_API_SECRET_FILE',
      'f.js app d env_live: TRADEBOT_QUEUE_REDIS_URL is a secret in pm2\'s stored environment; use TRADEBOT_QUEUE_REDIS_URL_FILE',
      'f.js app d env_live: TRADEBOT_QUEUE_REDIS_URL holds a URL with a password',
    ]);
    expect(scanPm2Apps('f.js', [{ name: 'ok', args: ['sim-exchange', '--api-secret-file', '/etc/s'], env: { TRADEBOT_API_SECRET_FILE: '/etc/s' } }])).toEqual([]);
  });

  test('Kubernetes: secretKeyRef env, envFrom a Secret, a password in args, a wide or writable Secret volume', () => {
    const pod = (container: Obj, volumes: Obj[] = []): Obj => ({ kind: 'Deployment', spec: { template: { spec: { containers: [container], volumes } } } });
    expect(scanKubernetesObject('d.yaml', pod({ name: 'c', env: [{ name: 'TRADEBOT_API_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] })))
      .toEqual(['d.yaml container c: env TRADEBOT_API_SECRET comes from a Secret as a value; mount the Secret as a file and set TRADEBOT_API_SECRET_FILE']);
    expect(scanKubernetesObject('d.yaml', pod({ name: 'c', envFrom: [{ secretRef: { name: 's' } }] }))).toHaveLength(1);
    expect(scanKubernetesObject('d.yaml', pod({ name: 'r', args: ['redis-server', '--requirepass', '$(PW)'] })))
      .toEqual(['d.yaml container r: --requirepass puts a secret on the command line']);
    expect(scanKubernetesObject('d.yaml', pod({ name: 'c', env: [{ name: 'TRADEBOT_REDIS_URL', value: 'redis://:pw@r:6379' }] }))).toHaveLength(2);
    expect(scanKubernetesObject('d.yaml', pod(
      { name: 'c', volumeMounts: [{ name: 's', mountPath: '/run/s' }] },
      [{ name: 's', secret: { secretName: 's', items: [{ key: 'k', path: 'k', mode: 0o644 }] } }],
    ))).toEqual([
      'd.yaml: Secret volume s has no defaultMode (Kubernetes makes it 0644, world-readable)',
      'd.yaml: Secret volume s mode 420 is wider than 0440',
      'd.yaml container c: Secret volume s is not mounted readOnly',
    ]);
    const cron = { kind: 'CronJob', spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'j', args: ['--password', 'x'] }] } } } } } };
    expect(scanKubernetesObject('c.yaml', cron)).toHaveLength(1);
  });

  test('docs and comments: commands with a secret; prose naming a refused flag is fine', () => {
    const text = [
      'node dist/src/main.js sim-exchange --port 8080 --api-key paper --api-secret paper-secret \\',
      '  --market BTC_USDT',
      '| `tradebot sim-exchange --api-key K --api-secret S` | x |',
      'kubectl create secret generic s --from-literal=TRADEBOT_API_SECRET=abc',
      'docker run -e TRADEBOT_API_SECRET -e TRADEBOT_REDIS_URL_FILE=/run/s tradebot',
      'TRADEBOT_API_SECRET=abc \\',
      '  pm2 start ecosystem.config.js',
      'redis-cli -a hunter2 ping',
      '`--api-secret` is refused; use `--api-secret-file F`',
      'tradebot sim-exchange --api-key K --api-secret-file /etc/sim-secret',
    ].join('\n');
    expect(scanCommandText('x.md', text)).toEqual([
      'x.md:1: "--api-secret p" puts a secret on a command line',
      'x.md:3: "--api-secret S" puts a secret on a command line',
      'x.md:4: kubectl --from-literal=TRADEBOT_API_SECRET= puts a secret on a command line; use --from-file',
      'x.md:5: "-e TRADEBOT_API_SECRET" passes a secret as a container\'s environment value; use TRADEBOT_API_SECRET_FILE',
      'x.md:6: a secret in the environment of `pm2 start` is stored in pm2 jlist and dump.pm2; use the _FILE variable',
      'x.md:8: redis-cli -a puts the password on a command line; use REDISCLI_AUTH or --askpass',
    ]);
  });

  test('Dockerfile: a secret variable in ENV or ARG, a secret flag in CMD', () => {
    expect(scanDockerfile('Dockerfile', [
      { keyword: 'ENV', args: 'NODE_ENV=production TRADEBOT_API_SECRET=x' },
      { keyword: 'ARG', args: 'QUEUE_REDIS_PASSWORD' },
      { keyword: 'CMD', args: '["node", "dist/src/main.js", "sim-exchange", "--api-secret", "x"]' },
    ])).toHaveLength(3);
  });
});

describe('the repository\'s process files and docs hold no secret on a command line', () => {
  test.each(pm2Files)('%s', (file) => {
    const { apps } = require(join(root, file)) as { apps: Obj[] };
    expect(apps.length).toBeGreaterThan(0);
    expect(scanPm2Apps(file, apps)).toEqual([]);
    expect(scanCommandText(file, read(file))).toEqual([]);
  });

  test.each(k8sFiles)('%s', (file) => {
    const problems = parseAllDocuments(read(file)).flatMap((d) => scanKubernetesObject(file, d.toJS() as Obj));
    expect(problems).toEqual([]);
    expect(scanCommandText(file, read(file))).toEqual([]);
  });

  test('every workload manifest was scanned (the scanner knows their kinds)', () => {
    const kinds = k8sFiles.map((f) => (parse(read(f)) as Obj)['kind']);
    expect(kinds).toEqual(expect.arrayContaining(['Deployment', 'StatefulSet']));
    expect(k8sFiles).toEqual(expect.arrayContaining(['deploy/k8s/deployment.yaml', 'deploy/k8s/sweep-worker-deployment.yaml', 'deploy/k8s/queue-redis-statefulset.yaml']));
  });

  test('Dockerfile (instructions and the commands in its comments)', () => {
    expect(scanDockerfile('Dockerfile', parseDockerfile(read('Dockerfile')))).toEqual([]);
    expect(scanCommandText('Dockerfile', read('Dockerfile'))).toEqual([]);
  });

  test.each(docFiles)('%s', (file) => {
    expect(scanCommandText(file, read(file))).toEqual([]);
  });

  test('package.json scripts, bench/ and the test helpers never pass --api-secret', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(scanCommandText('package.json', Object.values(scripts).join('\n'))).toEqual([]);
    for (const file of [...filesIn('bench', '.ts'), ...filesIn('test/helpers', '.ts')]) {
      expect([file, /['"`]--api-secret['"`]/.test(read(file))]).toEqual([file, false]);
    }
  });
});
