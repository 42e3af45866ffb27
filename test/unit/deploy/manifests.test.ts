import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { checkConfig } from '../../../src/cli/check-config-command';
import { isolationAtLeast } from '../../../src/domain/guest-isolation';
import { resolveIsolation } from '../../../src/strategy/guest/sandbox';
import { execForm, parseDockerfile } from './dockerfile-parse';

const root = join(__dirname, '../../..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');
const yamlDoc = <T>(p: string) => parse(read(p)) as T;

/** The daemon's graceful-shutdown delay (config shutdown.graceMs default). */
const SHUTDOWN_GRACE_MS = 10_000;
/**
 * Peak RSS of the paper daemon (config/paper.yaml: 3 strategies, 2 markets) over a 10-minute run
 * with Redis, bench/paper-soak.ts on Node 20 (docs/operations.md "Kubernetes" has the numbers).
 */
const MEASURED_RSS_MIB = { max: 218 };

function mebibytes(q: string): number {
  const m = /^(\d+)(Mi|Gi)$/.exec(q);
  if (m === null) throw new Error(`memory quantity ${q}: use Mi or Gi`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
}
const METRICS_PORT = 9464;
const CONSOLE_PORT = 8080;

type Obj = Record<string, any>;

describe('Kubernetes manifests', () => {
  const deployment = yamlDoc<Obj>('deploy/k8s/deployment.yaml');
  const service = yamlDoc<Obj>('deploy/k8s/service.yaml');
  const monitor = yamlDoc<Obj>('deploy/k8s/servicemonitor.yaml');
  const configMap = yamlDoc<Obj>('deploy/k8s/configmap.yaml');
  const secret = yamlDoc<Obj>('deploy/k8s/secret.example.yaml');
  const pdb = yamlDoc<Obj>('deploy/k8s/poddisruptionbudget.yaml');
  const netpol = yamlDoc<Obj>('deploy/k8s/networkpolicy.yaml');
  const pod = deployment['spec']['template']['spec'];
  const [container] = pod['containers'] as Obj[];
  if (container === undefined) throw new Error('no container');
  const metricsPort = (container['ports'] as Obj[]).find((p) => p['name'] === 'metrics');

  it('every file is a single well-formed document', () => {
    for (const f of ['deployment', 'service', 'servicemonitor', 'configmap', 'secret.example', 'poddisruptionbudget', 'networkpolicy']) {
      const docs = parseAllDocuments(read(`deploy/k8s/${f}.yaml`));
      expect([f, docs.length, docs[0]?.errors]).toEqual([f, 1, []]);
    }
    expect([deployment['kind'], service['kind'], monitor['kind'], configMap['kind'], secret['kind']])
      .toEqual(['Deployment', 'Service', 'ServiceMonitor', 'ConfigMap', 'Secret']);
    expect(monitor['apiVersion']).toBe('monitoring.coreos.com/v1');
  });

  it('selects its own pods', () => {
    const labels = deployment['spec']['template']['metadata']['labels'];
    expect(labels).toMatchObject(deployment['spec']['selector']['matchLabels']);
    expect(labels).toMatchObject(service['spec']['selector']);
  });

  it('probes /healthz and /readyz on the metrics port', () => {
    expect(metricsPort?.['containerPort']).toBe(METRICS_PORT);
    for (const [probe, path] of [['livenessProbe', '/healthz'], ['readinessProbe', '/readyz'], ['startupProbe', '/healthz']] as const) {
      const get = container[probe]?.['httpGet'];
      expect([probe, get?.['path']]).toEqual([probe, path]);
      expect([probe, [METRICS_PORT, 'metrics'].includes(get?.['port'])]).toEqual([probe, true]);
    }
  });

  it('opts the metrics listener in on the pod IP explicitly (the image keeps it on loopback), admitting only Prometheus on that port', () => {
    // Prometheus scrapes the pod IP and the kubelet's httpGet probes hit it: the listener must be there.
    expect(container['env']).toEqual(expect.arrayContaining([{ name: 'TRADEBOT_CONFIG__METRICS__HOST', value: '0.0.0.0' }]));
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) expect([probe, container[probe]['httpGet']['host']]).toEqual([probe, undefined]);
    // Everything that may connect to 9464 is named: the Prometheus pods of the monitoring namespace.
    const ingress = (netpol['spec']['ingress'] as Obj[]).filter((i) => (i['ports'] as Obj[]).some((p) => p['port'] === METRICS_PORT));
    expect(ingress).toHaveLength(1);
    expect(ingress[0]!['from']).toEqual([{
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
    }]);
    const readme = read('deploy/k8s/README.md');
    expect(readme).toMatch(/## Metrics: opted in on the pod IP/);
    for (const what of ['balances', 'exposure', 'PnL', 'open orders', 'strategy names']) expect([what, readme.includes(what)]).toEqual([what, true]);
  });

  it('gives the daemon more time to stop than its shutdown delay', () => {
    expect(pod['terminationGracePeriodSeconds'] * 1000).toBeGreaterThan(SHUTDOWN_GRACE_MS);
  });

  it('runs non-root, read-only, without privilege escalation or capabilities', () => {
    const sc = container['securityContext'];
    expect(pod['securityContext']['runAsNonRoot'] === true || sc['runAsNonRoot'] === true).toBe(true);
    expect(pod['securityContext']['runAsUser']).toBeGreaterThan(0);
    expect(sc).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(sc['capabilities']['add']).toBeUndefined();
    expect(sc['privileged']).not.toBe(true);
  });

  it('sets resource requests and limits from the measured RSS (requests above it, limit with headroom, pm2 restarts at the same limit)', () => {
    const r = container['resources'];
    for (const k of ['requests', 'limits']) expect([k, r[k]?.['cpu'] !== undefined, r[k]?.['memory'] !== undefined]).toEqual([k, true, true]);
    const request = mebibytes(r['requests']['memory']);
    const limit = mebibytes(r['limits']['memory']);
    expect(request).toBeGreaterThanOrEqual(MEASURED_RSS_MIB.max * 1.2);
    expect(limit).toBeGreaterThanOrEqual(request * 1.5);
    const { apps } = require(join(root, 'ecosystem.config.js')) as { apps: Obj[] };
    expect(apps[0]?.['max_memory_restart']).toBe(`${limit}M`);
  });

  it('a PodDisruptionBudget keeps one pod through drains (two replicas) without letting an unhealthy pod block them', () => {
    expect(pdb).toMatchObject({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', spec: { minAvailable: 1, unhealthyPodEvictionPolicy: 'AlwaysAllow' } });
    expect(deployment['spec']['template']['metadata']['labels']).toMatchObject(pdb['spec']['selector']['matchLabels']);
    expect(deployment['spec']['replicas']).toBeGreaterThan(pdb['spec']['minAvailable']);
  });

  it('a NetworkPolicy lets in only scrapes of the metrics port and the ingress controller on the console port, and out only DNS, Redis and HTTPS to public addresses', () => {
    expect(netpol).toMatchObject({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', spec: { policyTypes: ['Ingress', 'Egress'] } });
    expect(deployment['spec']['template']['metadata']['labels']).toMatchObject(netpol['spec']['podSelector']['matchLabels']);
    const ingress = netpol['spec']['ingress'] as Obj[];
    expect(ingress.flatMap((i) => i['ports'])).toEqual([{ protocol: 'TCP', port: METRICS_PORT }, { protocol: 'TCP', port: CONSOLE_PORT }]);
    const consoleFrom = ingress.find((i) => (i['ports'] as Obj[]).some((p) => p['port'] === CONSOLE_PORT))!['from'] as Obj[];
    expect(consoleFrom).toHaveLength(1);
    expect(consoleFrom[0]!['podSelector']['matchLabels']).toEqual({ 'app.kubernetes.io/name': 'ingress-nginx' });
    const egressPorts = (netpol['spec']['egress'] as Obj[]).flatMap((e) => (e['ports'] as Obj[]).map((p) => `${p['protocol']}/${p['port']}`)).sort();
    // Redis, its TLS port, and its sentinels (docs/redis.md), all only to pods labelled as Redis.
    expect(egressPorts).toEqual(['TCP/26379', 'TCP/443', 'TCP/53', 'TCP/6379', 'TCP/6380', 'UDP/53']);
    const https = (netpol['spec']['egress'] as Obj[]).find((e) => (e['ports'] as Obj[]).some((p) => p['port'] === 443));
    expect(https?.['to'][0]['ipBlock']['except']).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']));
  });

  it('serves the console on its port through the Service and a TLS Ingress only, tokens as files from the Secret, the TLS proxy declared', () => {
    const ingressDoc = yamlDoc<Obj>('deploy/k8s/ingress.example.yaml');
    const consolePort = (container['ports'] as Obj[]).find((p) => p['name'] === 'console');
    expect(consolePort).toMatchObject({ containerPort: CONSOLE_PORT, protocol: 'TCP' });
    expect((service['spec']['ports'] as Obj[]).find((p) => p['name'] === 'console')).toMatchObject({ port: CONSOLE_PORT, targetPort: 'console' });
    expect(ingressDoc).toMatchObject({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress' });
    expect(ingressDoc['metadata']['annotations']['nginx.ingress.kubernetes.io/force-ssl-redirect']).toBe('true');
    const host = ingressDoc['spec']['rules'][0]['host'] as string;
    expect(ingressDoc['spec']['tls'][0]['hosts']).toContain(host);
    expect(ingressDoc['spec']['rules'][0]['http']['paths'][0]['backend']['service']).toEqual({ name: service['metadata']['name'], port: { name: 'console' } });
    const live = parse(configMap['data']['live.yaml'] as string) as Obj;
    expect(live['console']).toMatchObject({ enabled: true, host: '0.0.0.0', port: CONSOLE_PORT, behindTlsProxy: true });
    const mount = (container['volumeMounts'] as Obj[]).find((m) => m['name'] === 'secrets')!['mountPath'] as string;
    const items = ((pod['volumes'] as Obj[]).find((v) => v['name'] === 'secrets')!['secret']['items'] as Obj[]).map((i) => `${mount}/${i['path']}`);
    for (const t of live['console']['tokens'] as Obj[]) {
      expect(t['sha256']).toBeUndefined();
      expect(items).toContain(t['file']);
    }
    expect(Object.keys(secret['stringData'])).toEqual(expect.arrayContaining(['CONSOLE_OPERATOR_TOKEN', 'CONSOLE_VIEWER_TOKEN']));
  });

  it('takes secrets as read-only files from the Secret (the *_FILE variables), never as environment values, and config from the ConfigMap', () => {
    const env = Object.fromEntries((container['env'] as Obj[]).map((e) => [e['name'], e]));
    const secretVolume = (pod['volumes'] as Obj[]).find((v) => v['secret']?.['secretName'] === secret['metadata']['name']);
    // 256 = 0400; with fsGroup the kubelet adds group read (0440), readable by the container's group only.
    expect(secretVolume?.['secret']['defaultMode']).toBe(0o400);
    expect(pod['securityContext']['fsGroup']).toBe(pod['securityContext']['runAsGroup']);
    const secretMount = (container['volumeMounts'] as Obj[]).find((m) => m['name'] === secretVolume?.['name']);
    expect(secretMount?.['readOnly']).toBe(true);
    const items = Object.fromEntries((secretVolume?.['secret']['items'] as Obj[]).map((i) => [i['key'], `${secretMount?.['mountPath']}/${i['path']}`]));
    for (const name of ['TRADEBOT_API_KEY', 'TRADEBOT_API_SECRET', 'TRADEBOT_REDIS_URL']) {
      expect([name, env[name]]).toEqual([name, undefined]);
      expect([name, env[`${name}_FILE`]?.['value']]).toEqual([name, items[name]]);
      expect(Object.keys(secret['stringData'])).toContain(name);
      expect(secret['stringData'][name]).toMatch(/^<.*>$/); // a placeholder, not a value
    }
    expect(JSON.stringify(container)).not.toMatch(/secretKeyRef|secretRef/);
    const volume = (pod['volumes'] as Obj[]).find((v) => v['configMap']?.['name'] === configMap['metadata']['name']);
    const mount = (container['volumeMounts'] as Obj[]).find((m) => m['name'] === volume?.['name']);
    expect(mount?.['readOnly']).toBe(true);
    const configArg = (container['args'] as string[])[(container['args'] as string[]).indexOf('--config') + 1];
    expect(Object.keys(configMap['data']).map((k) => `${mount?.['mountPath']}/${k}`)).toContain(configArg);
    const liveConfig = parse(configMap['data']['live.yaml'] as string) as Obj;
    expect(liveConfig['mode']).toBe('live');
    expect(liveConfig['shutdown']['graceMs']).toBe(SHUTDOWN_GRACE_MS);
    expect(configMap['data']['live.yaml']).not.toMatch(/apiSecret|apiKey|password/i);
  });

  it('the ConfigMap\'s live.yaml passes check-config: the real config loader, its strategies loaded in guests and their params validated', async () => {
    const text = configMap['data']['live.yaml'] as string;
    // Explicit: the image's Node 26 gives permission-net under the default seccomp profile (README "Strategy guest isolation").
    expect((parse(text) as Obj)['strategies']['minGuestIsolation']).toBe('permission-net');
    const dir = mkdtempSync(join(tmpdir(), 'tradebot-configmap-'));
    // Placeholders: live mode wants credentials and Redis present; nothing connects.
    const env = { TRADEBOT_API_KEY: 'placeholder-key', TRADEBOT_API_SECRET: 'placeholder-secret', TRADEBOT_REDIS_URL: 'redis://127.0.0.1:6379' };
    try {
      const file = join(dir, 'live.yaml');
      // The console's token files as the Secret mounts them, here in the temp dir: check-config reads them.
      let mounted = text;
      for (const name of ['console-operator-token', 'console-viewer-token']) {
        writeFileSync(join(dir, name), 'a-placeholder-token-of-enough-length\n');
        mounted = mounted.replace(`/run/secrets/tradebot/${name}`, join(dir, name));
      }
      writeFileSync(file, mounted);
      const here = resolveIsolation('auto');
      if (typeof here !== 'string') throw new Error(here.problem);
      let checked = file;
      if (!isolationAtLeast(here, 'permission-net')) {
        // A host weaker than the image (Node < 25 without namespaces): the floor refuses, as it should;
        // the rest of the config is checked with the floor at this host's level.
        const refused = await checkConfig(file, env, root);
        expect([refused.ok, refused.text]).toEqual([false, expect.stringContaining('strategies.minGuestIsolation')]);
        checked = join(dir, 'live-here.yaml');
        writeFileSync(checked, mounted.replace('minGuestIsolation: permission-net', `minGuestIsolation: ${here}`));
      }
      const result = await checkConfig(checked, env, root);
      expect([result.ok, result.text]).toEqual([true, expect.stringContaining(`OK ${checked}`)]);
      expect(result.text).toMatch(/strategy sma-cross \(version [^)]+\): BTC_USDT 1h, warm-up \d+, params \{"fast":10,"slow":30,/);
      expect(result.text).toContain('console: 0.0.0.0:8080 behind a TLS proxy, 2 token(s): operators (operator), viewers (viewer)');
      // A Secret without the token files: the daemon would not start, and check-config says so.
      const unmounted = join(dir, 'unmounted.yaml');
      writeFileSync(unmounted, readFileSync(checked, 'utf8').replace(join(dir, 'console-operator-token'), '/run/secrets/tradebot/console-operator-token'));
      const missing = await checkConfig(unmounted, env, root);
      expect([missing.ok, missing.text]).toEqual([false, expect.stringContaining('console.tokens[operators].file (/run/secrets/tradebot/console-operator-token) cannot be read: ENOENT')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('ServiceMonitor selects the Service by its labels and scrapes its metrics port', () => {
    expect(service['metadata']['labels']).toMatchObject(monitor['spec']['selector']['matchLabels']);
    const [endpoint] = monitor['spec']['endpoints'] as Obj[];
    expect(endpoint?.['path']).toBe('/metrics');
    const servicePort = (service['spec']['ports'] as Obj[]).find((p) => p['name'] === endpoint?.['port']);
    expect(servicePort?.['port']).toBe(METRICS_PORT);
    expect([metricsPort?.['name'], METRICS_PORT]).toContain(servicePort?.['targetPort']);
  });
});

describe('Dockerfile', () => {
  const instructions = parseDockerfile(read('Dockerfile'));
  const stages = instructions.filter((i) => i.keyword === 'FROM');
  const lastStage = stages.length - 1;
  const final = instructions.filter((i) => i.stage === lastStage);
  const one = (keyword: string) => final.filter((i) => i.keyword === keyword);

  it('is multi-stage on a pinned Node LTS release (full version tag, optional digest), building in the first stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const arg = instructions.find((i) => i.keyword === 'ARG' && i.args.startsWith('NODE_IMAGE='));
    // Not a floating tag (node:26-slim, node:lts): an exact release, so a rebuild gets the same runtime.
    const m = /^NODE_IMAGE=node:(\d+)\.(\d+)\.(\d+)-[a-z]+-slim(@sha256:[0-9a-f]{64})?$/.exec(arg?.args ?? '');
    expect(m).not.toBeNull();
    // An LTS line (even major) that is not past its end of life: 20 ended 2026-04-30, 22 ends 2027-04-30.
    expect(Number(m![1]) % 2).toBe(0);
    expect(Number(m![1])).toBeGreaterThanOrEqual(24);
    for (const s of stages) expect(s.args).toMatch(/^\$\{NODE_IMAGE\} AS \w+$/);
    const build = instructions.filter((i) => i.stage === 0 && i.keyword === 'RUN').map((i) => i.args).join('\n');
    expect(build).toMatch(/npm ci/);
    expect(build).toMatch(/npm run build/);
  });

  it('installs only production dependencies, without scripts, in the runtime stage', () => {
    const runs = one('RUN').map((i) => i.args).join('\n');
    expect(runs).toMatch(/npm ci --omit=dev --ignore-scripts/);
    const copies = one('COPY').map((i) => i.args);
    expect(copies).toEqual(expect.arrayContaining([
      expect.stringMatching(/^--from=build \S*dist \.\/dist$/),
      expect.stringMatching(/^src\/store\/scripts\/? \.\/src\/store\/scripts\/?$/),
      expect.stringMatching(/^config \.\/config$/),
      expect.stringMatching(/^strategies \.\/strategies$/),
    ]));
  });

  it('runs as a non-root numeric user', () => {
    const [user] = one('USER').slice(-1);
    expect(user?.args).toMatch(/^[1-9]\d*(:\d+)?$/);
  });

  it('checks health on /healthz with node and stops with SIGTERM', () => {
    const [hc] = one('HEALTHCHECK');
    const cmd = execForm(hc?.args.replace(/^.*?CMD\s+/, '') ?? '');
    expect(cmd?.[0]).toBe('node');
    expect(cmd?.join(' ')).toMatch(/\/healthz/);
    expect(one('STOPSIGNAL')[0]?.args).toBe('SIGTERM');
  });

  it('starts node directly (exec form) on the live config', () => {
    const cmd = execForm(one('CMD').slice(-1)[0]?.args ?? '');
    expect(cmd).toEqual(['node', 'dist/src/main.js', 'run', '--config', '/app/config/live.yaml']);
    expect(one('ENTRYPOINT')).toEqual([]);
  });

  it('keeps metrics on loopback unless the operator opts in: no metrics host, no EXPOSE, health checked on 127.0.0.1', () => {
    const env = instructions.filter((i) => i.keyword === 'ENV' || i.keyword === 'ARG').map((i) => i.args).join(' ');
    expect(env).not.toMatch(/METRICS__HOST|METRICS_HOST/);
    expect(instructions.filter((i) => i.keyword === 'EXPOSE')).toEqual([]);
    expect(one('HEALTHCHECK')[0]?.args).toMatch(/http:\/\/127\.0\.0\.1:/);
    // The opt-in and what it exposes are documented where the operator looks.
    const header = read('Dockerfile').split('\n').filter((l) => l.startsWith('#')).join('\n');
    expect(header).toMatch(/TRADEBOT_CONFIG__METRICS__HOST=0\.0\.0\.0 -p 127\.0\.0\.1:9464:9464/);
    expect(header).toMatch(/balances,\s+# exposure, PnL, open orders and strategy names/);
    expect(read('docs/operations.md')).toMatch(/opts in with `TRADEBOT_CONFIG__METRICS__HOST=0\.0\.0\.0`/);
  });

  it('sets NODE_ENV=production and bakes in no secrets', () => {
    const env = one('ENV').map((i) => i.args).join(' ');
    expect(env).toMatch(/NODE_ENV=production/);
    for (const i of instructions.filter((x) => x.keyword === 'ENV' || x.keyword === 'ARG')) {
      expect(i.args).not.toMatch(/SECRET|API_KEY|PASSWORD|TOKEN|REDIS_URL/i);
    }
    const copies = instructions.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD').map((i) => i.args).join('\n');
    expect(copies).not.toMatch(/\.env|secret|\.pem|\.key\b|live\.yaml/i);
    expect(read('.dockerignore')).toMatch(/^\.env$/m);
    expect(read('.dockerignore')).toMatch(/^config\/live\.yaml$/m);
    expect(read('.dockerignore')).toMatch(/^node_modules$/m);
  });
});

describe('pm2 ecosystem file', () => {
  const { apps } = require(join(root, 'ecosystem.config.js')) as { apps: Obj[] };
  const app = apps.find((a) => a['name'] === 'tradebot');

  it('runs the built daemon on the paper config in fork mode', () => {
    expect(app?.['script']).toBe('dist/src/main.js');
    expect(app?.['args']).toEqual(['run', '--config', process.env['TRADEBOT_CONFIG'] ?? 'config/paper.yaml']);
    expect(app?.['exec_mode']).toBe('fork');
  });

  it('waits longer than the shutdown delay before SIGKILL, and backs off restarts', () => {
    expect(app?.['kill_timeout']).toBeGreaterThan(SHUTDOWN_GRACE_MS);
    expect(app?.['exp_backoff_restart_delay']).toBeGreaterThan(0);
    expect(app?.['max_restarts']).toBeGreaterThan(0);
    expect(app?.['stop_exit_codes']).toContain(78);
    expect(app?.['wait_ready']).toBe(true);
  });

  it('has paper and live environments without secrets', () => {
    expect(app?.['env_paper']).toBeDefined();
    expect(app?.['env_live']).toMatchObject({ NODE_ENV: 'production' });
    const text = JSON.stringify(app);
    expect(text).not.toMatch(/TRADEBOT_API_SECRET|TRADEBOT_API_KEY|TRADEBOT_REDIS_URL/);
  });
});
