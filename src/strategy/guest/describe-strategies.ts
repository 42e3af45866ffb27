import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { INTERVALS } from '../../domain/candle';
import { StrategyLoadError } from '../../domain/errors';
import { MARKET_NAME } from '../../domain/market';
import { MAX_PARAMS_TEXT } from '../../store/order-record';
import { STRATEGY_NAME, type StrategyConfig } from '../prepare-strategy';
import { strategyFiles } from '../strategy-loader';
import { sha256Text, strategyIdentity, type StrategyIdentity, type StrategySource } from '../strategy-version';
import { openChannel } from './guest-channel';
import type { GuestIsolationLevel } from '../../domain/guest-isolation';
import { defaultIsolation, strategyReadable } from './sandbox';
import type { GuestStrategy } from './guest-host';
import type { FromGuest } from './protocol';
import { toWire } from './wire';

export interface DescribedStrategies {
  /** Valid, enabled strategies (metadata only), sorted by file name. */
  readonly strategies: readonly DescribedStrategy[];
  readonly errors: readonly StrategyLoadError[];
  readonly disabled: readonly string[];
}

/**
 * A strategy's metadata from its guest; `params` (resolved, untrusted) is for display and the journal.
 * `identity.version` hashes the files the guest says the module loaded, read and hashed HERE.
 */
export type DescribedStrategy = GuestStrategy & { readonly file: string; readonly params: unknown; readonly identity: StrategyIdentity; readonly description?: string | undefined };

export interface DescribeOptions {
  /** How each describing guest is walled off (sandbox.ts); default the strongest this host allows. */
  readonly isolation?: GuestIsolationLevel | undefined;
  readonly heapMb?: number | undefined;
  /** Time one module gets to load and validate in its guest. */
  readonly timeoutMs?: number | undefined;
}

/** The guest's answer is untrusted: the metadata the daemon acts on is checked again here. */
const describedSchema = z.object({
  name: z.string().regex(STRATEGY_NAME),
  file: z.string(),
  markets: z.array(z.string().regex(MARKET_NAME)).min(1),
  interval: z.enum(INTERVALS),
  warmup: z.number().int().min(0),
  window: z.number().int().min(1).max(1_000_000),
  params: z.unknown(),
  description: z.string().max(2000).optional(),
  sources: z.array(z.string()).min(1).max(1000),
}).strict();
const MAX_TEXT = 2000;

/**
 * What `loadStrategies` tells, without running any module in the daemon: each module file is loaded
 * and validated (with the config's overrides) in its OWN throwaway guest, which answers plain
 * metadata and the load errors; a module whose top-level code exits, spins or throws fails alone.
 * Across files, as loadStrategies does: a name declared twice is refused, a configured name no
 * module declares is reported.
 */
export async function describeStrategies(dir: string, config: Readonly<Record<string, StrategyConfig>>, o: DescribeOptions = {}): Promise<DescribedStrategies> {
  const abs = path.resolve(dir);
  const files = strategyFiles(abs);
  const answers: FileAnswer[] = [];
  // Two at a time: start-up stays short without a process per module all at once.
  for (let i = 0; i < files.length; i += 2) answers.push(...await Promise.all(files.slice(i, i + 2).map((f) => describeFile(abs, f, config, o))));
  const strategies: (DescribedStrategy)[] = [];
  const errors: StrategyLoadError[] = [];
  const disabled: string[] = [];
  const declared = new Set<string>();
  const byName = new Map<string, string>();
  answers.forEach((a, i) => {
    const file = path.join(abs, files[i] as string);
    for (const n of a.declared) declared.add(n);
    errors.push(...a.errors);
    for (const s of a.strategies) {
      const other = byName.get(s.name);
      if (other !== undefined) {
        errors.push(new StrategyLoadError(`${file}: strategy name "${s.name}" is already used by ${other}`, { file, strategy: s.name, reason: 'duplicate' }));
        continue;
      }
      byName.set(s.name, file);
      if (config[s.name]?.enabled === false) disabled.push(s.name);
      else strategies.push(s);
    }
  });
  for (const name of Object.keys(config)) {
    if (!declared.has(name)) errors.push(new StrategyLoadError(`config names strategy "${name}" but no module in ${abs} defines it`, { file: abs, strategy: name, reason: 'unknown' }));
  }
  return { strategies, errors, disabled };
}

interface FileAnswer {
  readonly strategies: readonly (DescribedStrategy)[];
  readonly errors: readonly StrategyLoadError[];
  readonly declared: readonly string[];
}

function describeFile(dir: string, name: string, config: Readonly<Record<string, StrategyConfig>>, o: DescribeOptions): Promise<FileAnswer> {
  const file = path.join(dir, name);
  const failed = (why: string): FileAnswer => ({
    strategies: [], declared: [], errors: [new StrategyLoadError(`${file}: failed to load: ${why}`, { file, reason: 'load' })],
  });
  return new Promise<FileAnswer>((resolve) => {
    let done = false;
    const finish = (answer: FileAnswer): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      void channel.kill();
      resolve(answer);
    };
    const channel = openChannel({
      isolation: o.isolation ?? defaultIsolation(), heapMb: o.heapMb ?? 128, readable: strategyReadable(file),
      onMessage: (m: FromGuest) => {
        if (m?.type === 'described') finish(checkAnswer(file, m));
        else if (m?.type === 'describe_failed') finish(failed(text(m.reason)));
      },
      onEnd: (reason) => finish(failed(`its guest ended while loading it (${reason})`)),
    });
    const timer = setTimeout(() => finish(failed(`did not load within ${o.timeoutMs ?? 10_000} ms`)), o.timeoutMs ?? 10_000);
    timer.unref();
    channel.hold(true); // the answer is awaited
    channel.post({ type: 'describe', dir, file: name, config: toWire(config) });
  });
}

function checkAnswer(file: string, m: Extract<FromGuest, { type: 'described' }>): FileAnswer {
  const strategies: (DescribedStrategy)[] = [];
  const errors: StrategyLoadError[] = [];
  for (const raw of Array.isArray(m.strategies) ? m.strategies : []) {
    const parsed = describedSchema.safeParse(raw);
    if (!parsed.success || parsed.data.file !== file) {
      errors.push(new StrategyLoadError(`${file}: its guest described it wrongly: ${parsed.success ? 'another file' : parsed.error.issues[0]?.message}`, { file, reason: 'invalid' }));
      continue;
    }
    const identity = identityOf(file, parsed.data.sources, parsed.data.params);
    if (typeof identity === 'string') {
      errors.push(new StrategyLoadError(`${file}: ${identity}`, { file, reason: 'invalid' }));
      continue;
    }
    const { sources: _files, ...meta } = parsed.data;
    strategies.push(Object.freeze({ ...meta, markets: Object.freeze([...meta.markets]), identity }));
  }
  for (const e of Array.isArray(m.errors) ? m.errors : []) {
    const context: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(e?.context ?? {}) as [string, unknown][]) if (['string', 'number', 'boolean'].includes(typeof v)) context[k] = typeof v === 'string' ? text(v) : (v as number | boolean);
    // A configured name another file declares is not "unknown": describeStrategies decides that across files.
    if (context['reason'] === 'unknown') continue;
    errors.push(new StrategyLoadError(text(e?.message), { ...context, file }));
  }
  const declared = (Array.isArray(m.declared) ? m.declared : []).filter((n): n is string => typeof n === 'string').map(text);
  return { strategies, errors, declared };
}

/** The version from the files themselves (module first, each inside the module's folder), or why not. */
function identityOf(file: string, sources: readonly string[], params: unknown): StrategyIdentity | string {
  if (sources[0] !== file) return 'its guest named another file as the module';
  const dir = path.dirname(file) + path.sep;
  const hashed: StrategySource[] = [];
  for (const f of sources) {
    if (!path.isAbsolute(f) || !path.normalize(f).startsWith(dir)) return `its guest named a source outside ${dir}: ${text(f)}`;
    try {
      hashed.push({ file: f, sha256: sha256Text(readFileSync(f, 'utf8')) });
    } catch (err) {
      return `cannot read its source ${f}: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  const identity = strategyIdentity(hashed, params);
  if (identity.params.length > MAX_PARAMS_TEXT) return `its parameters are ${identity.params.length} characters of JSON; every order records them, at most ${MAX_PARAMS_TEXT}`;
  return identity;
}

function text(v: unknown): string {
  return String(v).slice(0, MAX_TEXT);
}
