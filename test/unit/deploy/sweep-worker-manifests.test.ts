import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

const root = join(__dirname, '../../..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');
const yamlDoc = <T>(p: string) => parse(read(p)) as T;
type Obj = Record<string, any>;

/**
 * Peak RSS of `tradebot worker --concurrency 2` running a 16-run sweep of sma-cross over a month of
 * 1-minute candles (one market), /usr/bin/time -v on a busy shared machine
 * (docs/distributed-sweeps.md "Sizing"). With --concurrency 1 it was 183 MiB.
 */
const MEASURED_WORKER_RSS_MIB = { max: 263, threads: 2 };

function mebibytes(q: string): number {
  const m = /^(\d+)(Mi|Gi)$/.exec(q);
  if (m === null) throw new Error(`memory quantity ${q}: use Mi or Gi`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
}
const flag = (args: readonly string[], name: string): string | undefined => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};

describe('distributed sweep manifests', () => {
  const files = ['sweep-worker-deployment', 'queue-redis-statefulset', 'queue-redis-service', 'queue-secret.example', 'sweep-worker-networkpolicy', 'queue-redis-networkpolicy'];
  const worker = yamlDoc<Obj>('deploy/k8s/sweep-worker-deployment.yaml');
  const redis = yamlDoc<Obj>('deploy/k8s/queue-redis-statefulset.yaml');
  const redisService = yamlDoc<Obj>('deploy/k8s/queue-redis-service.yaml');
  const secret = yamlDoc<Obj>('deploy/k8s/queue-secret.example.yaml');
  const daemon = yamlDoc<Obj>('deploy/k8s/deployment.yaml');
  const daemonPolicy = yamlDoc<Obj>('deploy/k8s/networkpolicy.yaml');
  const workerPolicy = yamlDoc<Obj>('deploy/k8s/sweep-worker-networkpolicy.yaml');
  const redisPolicy = yamlDoc<Obj>('deploy/k8s/queue-redis-networkpolicy.yaml');
  const pod = worker['spec']['template']['spec'];
  const [container] = pod['containers'] as Obj[];
  if (container === undefined) throw new Error('no container');
  const args = container['args'] as string[];

  it('every file is a single well-formed document of the expected kind', () => {
    for (const f of files) {
      const docs = parseAllDocuments(read(`deploy/k8s/${f}.yaml`));
      expect([f, docs.length, docs[0]?.errors]).toEqual([f, 1, []]);
    }
    expect([worker['kind'], redis['kind'], redisService['kind'], secret['kind'], workerPolicy['kind'], redisPolicy['kind']])
      .toEqual(['Deployment', 'StatefulSet', 'Service', 'Secret', 'NetworkPolicy', 'NetworkPolicy']);
  });

  it('workers select their own pods and never the daemon\'s (nor does the daemon select theirs)', () => {
    const labels = worker['spec']['template']['metadata']['labels'];
    expect(labels).toMatchObject(worker['spec']['selector']['matchLabels']);
    expect(daemon['spec']['template']['metadata']['labels']).not.toMatchObject(worker['spec']['selector']['matchLabels']);
    expect(labels).not.toMatchObject(daemon['spec']['selector']['matchLabels']);
    expect(redis['spec']['template']['metadata']['labels']).toMatchObject(redisService['spec']['selector']);
    expect(redisService['metadata']['name']).toBe(redis['spec']['serviceName']);
  });

  it('runs `tradebot worker` with --concurrency equal to its CPU request (Node sees the node\'s cores, not the pod\'s)', () => {
    expect(args.slice(0, 3)).toEqual(['node', 'dist/src/main.js', 'worker']);
    expect(Number(flag(args, '--concurrency'))).toBe(Number(container['resources']['requests']['cpu']));
    expect(flag(args, '--cache-dir')).toBe((container['volumeMounts'] as Obj[]).find((m) => m['name'] === 'data-cache')?.['mountPath']);
  });

  it('gives running chunks their drain time before Kubernetes kills the pod', () => {
    expect(pod['terminationGracePeriodSeconds']).toBeGreaterThan(Number(flag(args, '--drain-seconds')));
  });

  it('sets memory from the measured worker RSS (request above the peak, limit with headroom, pm2 restarts at the same limit)', () => {
    const r = container['resources'];
    for (const k of ['requests', 'limits']) expect([k, r[k]?.['cpu'] !== undefined, r[k]?.['memory'] !== undefined]).toEqual([k, true, true]);
    expect(Number(r['requests']['cpu'])).toBe(MEASURED_WORKER_RSS_MIB.threads);
    const request = mebibytes(r['requests']['memory']);
    const limit = mebibytes(r['limits']['memory']);
    expect(request).toBeGreaterThanOrEqual(MEASURED_WORKER_RSS_MIB.max * 1.2);
    expect(limit).toBeGreaterThanOrEqual(request * 1.5);
    const { apps } = require(join(root, 'deploy/pm2/sweep-worker.config.js')) as { apps: Obj[] };
    const app = apps.find((a) => a['name'] === 'tradebot-sweep-worker');
    expect(app?.['max_memory_restart']).toBe(`${limit}M`);
    expect((app?.['args'] as string[])[0]).toBe('worker');
    // Kept under deploy/pm2/ (the top level holds the daemon's process file only); the worker runs from the checkout's root.
    expect(app?.['cwd']).toBe(root);
    // The daemon's process file starts the daemon alone.
    expect((require(join(root, 'ecosystem.config.js')) as { apps: Obj[] }).apps.map((a) => a['name'])).toEqual(['tradebot']);
    expect(app?.['kill_timeout']).toBeGreaterThan(Number(flag(app?.['args'] as string[], '--drain-seconds')) * 1000);
  });

  it('runs non-root, read-only, without privilege escalation or capabilities (workers and queue Redis)', () => {
    for (const p of [pod, redis['spec']['template']['spec']]) {
      const sc = (p['containers'] as Obj[])[0]?.['securityContext'];
      expect(p['securityContext']['runAsNonRoot'] === true || sc['runAsNonRoot'] === true).toBe(true);
      expect(p['securityContext']['runAsUser']).toBeGreaterThan(0);
      expect(sc).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      expect(p['automountServiceAccountToken']).toBe(false);
    }
  });

  it('the queue Redis never evicts, keeps an AOF on a volume, and takes its password from the Secret', () => {
    const [r] = redis['spec']['template']['spec']['containers'] as Obj[];
    const a = r?.['args'] as string[];
    expect(flag(a, '--maxmemory-policy')).toBe('noeviction');
    expect(flag(a, '--appendonly')).toBe('yes');
    expect(flag(a, '--appendfsync')).toBe('everysec');
    expect(flag(a, '--dir')).toBe((r?.['volumeMounts'] as Obj[]).find((m) => m['name'] === 'data')?.['mountPath']);
    expect((redis['spec']['volumeClaimTemplates'] as Obj[])[0]?.['metadata']['name']).toBe('data');
    // The password is not an argument: redis-server reads it from its config file (the first argument), a read-only Secret file.
    expect(a.join(' ')).not.toMatch(/requirepass|\$\(/);
    const conf = a[1]!;
    const authVolume = (redis['spec']['template']['spec']['volumes'] as Obj[]).find((v) => v['secret']?.['secretName'] === secret['metadata']['name']);
    const authMount = (r?.['volumeMounts'] as Obj[]).find((m) => m['name'] === authVolume?.['name']);
    expect(authMount?.['readOnly']).toBe(true);
    expect(authVolume?.['secret']).toMatchObject({ defaultMode: 0o400, items: [{ key: 'redis-auth.conf', path: 'redis-auth.conf' }] });
    expect(conf).toBe(`${authMount?.['mountPath']}/redis-auth.conf`);
    expect(secret['stringData']['redis-auth.conf']).toMatch(/^<requirepass .*>$/);
    expect(r?.['env']).toBeUndefined();
    // maxmemory below the container limit: room for the AOF rewrite and client buffers.
    expect(Number(/^(\d+)mb$/.exec(flag(a, '--maxmemory') ?? '')?.[1])).toBeLessThan(mebibytes(r?.['resources']['limits']['memory']));
  });

  it('takes the queue URL as a read-only file from the Secret (TRADEBOT_QUEUE_REDIS_URL_FILE), never as an environment value', () => {
    const env = Object.fromEntries((container['env'] as Obj[]).map((e) => [e['name'], e]));
    expect(env['TRADEBOT_QUEUE_REDIS_URL']).toBeUndefined();
    const volume = (pod['volumes'] as Obj[]).find((v) => v['secret']?.['secretName'] === secret['metadata']['name']);
    const mount = (container['volumeMounts'] as Obj[]).find((m) => m['name'] === volume?.['name']);
    expect(mount?.['readOnly']).toBe(true);
    // Only the URL: the queue Redis' config file is not the workers' business.
    expect(volume?.['secret']).toMatchObject({ defaultMode: 0o400, items: [{ key: 'TRADEBOT_QUEUE_REDIS_URL', path: 'queue-redis-url' }] });
    expect(env['TRADEBOT_QUEUE_REDIS_URL_FILE']?.['value']).toBe(`${mount?.['mountPath']}/queue-redis-url`);
    expect(pod['securityContext']['fsGroup']).toBe(pod['securityContext']['runAsGroup']);
    for (const v of Object.values(secret['stringData'] as Record<string, string>)) expect(v).toMatch(/^<.*>$/);
    // The worker needs no inbound traffic and no trading credentials.
    expect(container['ports']).toBeUndefined();
    expect(Object.keys(env).filter((k) => k.startsWith('TRADEBOT_API_'))).toEqual([]);
  });

  it('NetworkPolicy: workers take no inbound traffic and reach only DNS and the queue Redis on 6379', () => {
    const labels = worker['spec']['template']['metadata']['labels'];
    expect(workerPolicy['spec']['policyTypes']).toEqual(['Ingress', 'Egress']);
    expect(labels).toMatchObject(workerPolicy['spec']['podSelector']['matchLabels']);
    expect(workerPolicy['spec']['ingress']).toEqual([]);
    const egress = workerPolicy['spec']['egress'] as Obj[];
    const ports = (e: Obj) => (e['ports'] as Obj[]).map((p) => `${p['protocol']}/${p['port']}`).sort();
    expect(egress.map(ports)).toEqual([['TCP/53', 'UDP/53'], ['TCP/6379']]);
    // DNS: kube-dns in kube-system, as the daemon's policy.
    expect(egress[0]!['to']).toEqual((daemonPolicy['spec']['egress'] as Obj[])[0]!['to']);
    // Redis: exactly the queue Redis pods (no ipBlock, no namespaceSelector: no other address).
    expect(egress[1]!['to']).toEqual([{ podSelector: { matchLabels: redisService['spec']['selector'] } }]);
    expect(redis['spec']['template']['metadata']['labels']).toMatchObject(egress[1]!['to'][0]['podSelector']['matchLabels']);
  });

  it('NetworkPolicy: the queue Redis takes 6379 from the workers and the sweep submitters only, and goes nowhere', () => {
    expect(redisPolicy['spec']['policyTypes']).toEqual(['Ingress', 'Egress']);
    expect(redis['spec']['template']['metadata']['labels']).toMatchObject(redisPolicy['spec']['podSelector']['matchLabels']);
    expect(redisPolicy['spec']['egress']).toEqual([]);
    const [rule, ...more] = redisPolicy['spec']['ingress'] as Obj[];
    expect(more).toEqual([]);
    expect(rule!['ports']).toEqual([{ protocol: 'TCP', port: 6379 }]);
    expect(rule!['from']).toEqual([
      { podSelector: { matchLabels: worker['spec']['selector']['matchLabels'] } },
      { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'tradebot-sweep-submitter' } } },
    ]);
    // Not the daemon: it never uses the queue (and its own policy does not let it out to this Redis).
    for (const from of rule!['from'] as Obj[]) expect(daemon['spec']['template']['metadata']['labels']).not.toMatchObject(from['podSelector']['matchLabels']);
    const daemonRedis = (daemonPolicy['spec']['egress'] as Obj[]).flatMap((e) => e['to'] as Obj[]).filter((t) => t['podSelector'] !== undefined);
    for (const t of daemonRedis) expect(redis['spec']['template']['metadata']['labels']).not.toMatchObject(t['podSelector']['matchLabels']);
    expect(read('deploy/k8s/README.md')).toMatch(/app\.kubernetes\.io\/name: tradebot-sweep-submitter/);
  });
});
