/**
 * Finds secrets put where other people read them: on a process's command line (`ps`,
 * /proc/<pid>/cmdline, `pm2 jlist`, a container's args in `crictl inspect`) or in an environment value
 * of a process file (pm2 stores an app's env in jlist and dump.pm2; a Kubernetes env is inherited by
 * every child and readable in /proc/<pid>/environ). Secrets go in files: the *_FILE variables, the
 * simulator's --api-secret-file, a Redis config file. Each finding is one readable line.
 */

type Obj = Record<string, unknown>;

/** Flags whose next word (or `=value`) is a secret. --api-secret-file and the like name a file: allowed. */
const SECRET_FLAG = /(^|\s|["'[,])(--api-secret|--requirepass|--masterauth|--password|--token)(?=[\s=]|["',\]]|$)/;
/** Variables that hold a secret's value; their *_FILE twins (a path) are what process files may set. */
const SECRET_VARIABLE = /^(?!.*_FILE$)(TRADEBOT_(API_KEY|API_SECRET|REDIS_URL|QUEUE_REDIS_URL|SIM_API_SECRET)|\w*(PASSWORD|SECRET|TOKEN)\w*)$/;
/** A URL with a password in it: `scheme://[user]:password@host`. */
const URL_WITH_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:[^\s/@]+@/i;

function argProblems(where: string, args: readonly string[]): string[] {
  const text = args.join(' ');
  const problems: string[] = [];
  const flag = SECRET_FLAG.exec(text);
  if (flag !== null) problems.push(`${where}: ${flag[2]} puts a secret on the command line`);
  if (URL_WITH_PASSWORD.test(text)) problems.push(`${where}: a URL with a password on the command line`);
  return problems;
}

/** pm2 process files: every app's script/args and every env_* block. */
export function scanPm2Apps(file: string, apps: readonly Obj[]): string[] {
  const problems: string[] = [];
  for (const app of apps) {
    const where = `${file} app ${String(app['name'])}`;
    const args = [app['script'], app['args'], app['node_args'], app['interpreter_args']]
      .flatMap((a) => (Array.isArray(a) ? a : a === undefined ? [] : [a]))
      .map(String);
    problems.push(...argProblems(where, args));
    for (const [key, block] of Object.entries(app)) {
      if (key !== 'env' && !key.startsWith('env_')) continue;
      for (const [name, value] of Object.entries((block ?? {}) as Obj)) {
        if (SECRET_VARIABLE.test(name)) problems.push(`${where} ${key}: ${name} is a secret in pm2's stored environment; use ${name}_FILE`);
        if (URL_WITH_PASSWORD.test(String(value))) problems.push(`${where} ${key}: ${name} holds a URL with a password`);
      }
    }
  }
  return problems;
}

/** The pod specs of a Kubernetes object (workloads and bare pods), whatever its kind. */
function podSpecs(doc: Obj): Obj[] {
  const spec = doc['spec'] as Obj | undefined;
  if (spec === undefined) return [];
  switch (doc['kind']) {
    case 'Pod':
      return [spec];
    case 'CronJob':
      return [((((spec['jobTemplate'] as Obj)['spec'] as Obj)['template'] as Obj)['spec']) as Obj];
    case 'Deployment': case 'StatefulSet': case 'DaemonSet': case 'ReplicaSet': case 'Job':
      return [(spec['template'] as Obj)['spec'] as Obj];
    default:
      return [];
  }
}

/** One parsed Kubernetes document: args, env, envFrom and Secret volumes of every container. */
export function scanKubernetesObject(file: string, doc: Obj): string[] {
  const problems: string[] = [];
  for (const pod of podSpecs(doc)) {
    const secretVolumes = new Map<string, Obj>();
    for (const v of (pod['volumes'] ?? []) as Obj[]) if (v['secret'] !== undefined) secretVolumes.set(String(v['name']), v['secret'] as Obj);
    for (const [name, secret] of secretVolumes) {
      // 0400 (256): owner-read only; with the pod's fsGroup the kubelet adds group read (0440), no more.
      const modes = [secret['defaultMode'], ...((secret['items'] ?? []) as Obj[]).map((i) => i['mode'])].filter((m) => m !== undefined);
      if (secret['defaultMode'] === undefined) problems.push(`${file}: Secret volume ${name} has no defaultMode (Kubernetes makes it 0644, world-readable)`);
      for (const m of modes) if (typeof m !== 'number' || (m & 0o337) !== 0) problems.push(`${file}: Secret volume ${name} mode ${String(m)} is wider than 0440`);
    }
    const containers = [...((pod['initContainers'] ?? []) as Obj[]), ...((pod['containers'] ?? []) as Obj[])];
    for (const c of containers) {
      const where = `${file} container ${String(c['name'])}`;
      problems.push(...argProblems(where, [...((c['command'] ?? []) as string[]), ...((c['args'] ?? []) as string[])]));
      for (const e of (c['env'] ?? []) as Obj[]) {
        const name = String(e['name']);
        if ((e['valueFrom'] as Obj | undefined)?.['secretKeyRef'] !== undefined) {
          problems.push(`${where}: env ${name} comes from a Secret as a value; mount the Secret as a file and set ${name}_FILE`);
        } else if (SECRET_VARIABLE.test(name)) {
          problems.push(`${where}: env ${name} holds a secret's value; use ${name}_FILE`);
        }
        if (URL_WITH_PASSWORD.test(String(e['value'] ?? ''))) problems.push(`${where}: env ${name} holds a URL with a password`);
      }
      for (const f of (c['envFrom'] ?? []) as Obj[]) {
        if (f['secretRef'] !== undefined) problems.push(`${where}: envFrom a Secret turns its keys into environment values; mount it as files`);
      }
      for (const m of (c['volumeMounts'] ?? []) as Obj[]) {
        if (secretVolumes.has(String(m['name'])) && m['readOnly'] !== true) problems.push(`${where}: Secret volume ${String(m['name'])} is not mounted readOnly`);
      }
    }
  }
  return problems;
}

/** Lines with their `\`-continuations joined (a comment's `#` prefix dropped), numbered by their first line. */
function logicalLines(text: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let current: { line: string; number: number } | undefined;
  text.split('\n').forEach((raw, i) => {
    const piece = current === undefined ? raw : raw.replace(/^\s*#/, '');
    current = current === undefined ? { line: piece, number: i + 1 } : { line: `${current.line} ${piece}`, number: current.number };
    if (/\\\s*$/.test(piece)) {
      current.line = current.line.replace(/\\\s*$/, '');
    } else {
      out.push(current);
      current = undefined;
    }
  });
  if (current !== undefined) out.push(current);
  return out;
}

/** Dockerfile instructions: no secret in ENV/ARG names or values, none on a RUN/CMD/ENTRYPOINT/HEALTHCHECK line. */
export function scanDockerfile(file: string, instructions: readonly { keyword: string; args: string }[]): string[] {
  const problems: string[] = [];
  for (const i of instructions) {
    const where = `${file} ${i.keyword} ${i.args.slice(0, 40)}`;
    if (i.keyword === 'ENV' || i.keyword === 'ARG') {
      for (const [, name = ''] of i.args.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)(?==|\s|$)/g)) {
        if (SECRET_VARIABLE.test(name)) problems.push(`${where}: ${name} would bake a secret into the image`);
      }
    }
    problems.push(...argProblems(where, [i.args]));
  }
  return problems;
}

/**
 * Command lines in documentation and comments: a command someone copies puts the secret in `ps` and
 * the shell history. Prose that names a flag (`--api-secret` is refused) is not a command line.
 */
export function scanCommandText(file: string, text: string): string[] {
  const problems: string[] = [];
  logicalLines(text).forEach(({ line, number }) => {
    const where = `${file}:${number}`;
    const flag = /--api-secret[ =](?!-)[^\s`|]/.exec(line) ?? /(--requirepass|--masterauth)[ =][^\s`|]/.exec(line);
    if (flag !== null) problems.push(`${where}: "${flag[0]}" puts a secret on a command line`);
    const literal = /--from-literal=\w*(SECRET|PASSWORD|REDIS_URL|TOKEN)\w*=/.exec(line);
    if (literal !== null) problems.push(`${where}: kubectl ${literal[0]} puts a secret on a command line; use --from-file`);
    if (/\bredis-cli\b.*\s-a\s/.test(line)) problems.push(`${where}: redis-cli -a puts the password on a command line; use REDISCLI_AUTH or --askpass`);
    const dockerEnv = /(^|\s)(-e|--env)[ =](TRADEBOT_(API_SECRET|REDIS_URL|QUEUE_REDIS_URL|SIM_API_SECRET)|\w*(PASSWORD|SECRET|TOKEN)\w*)(?![\w])/.exec(line);
    if (dockerEnv !== null && !dockerEnv[3]!.endsWith('_FILE')) problems.push(`${where}: "${dockerEnv[0].trim()}" passes a secret as a container's environment value; use ${dockerEnv[3]}_FILE`);
    const pm2Env = /\bTRADEBOT_(API_SECRET|REDIS_URL|QUEUE_REDIS_URL)=\S.*\bpm2\s+start\b/.exec(line);
    if (pm2Env !== null) problems.push(`${where}: a secret in the environment of \`pm2 start\` is stored in pm2 jlist and dump.pm2; use the _FILE variable`);
  });
  return problems;
}
