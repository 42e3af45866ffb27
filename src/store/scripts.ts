import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RedisConnection } from './redis';
import {
  InvalidTransitionError,
  LeaseLostError,
  NotReadyError,
  StaleStateError,
  StoreUnavailableError,
  type ErrorContext,
  type TradebotError,
} from '../domain/errors';

/**
 * The Lua scripts of the store, registered with ioredis `defineCommand` (EVALSHA, falling back to
 * EVAL once per connection on NOSCRIPT) behind typed wrappers. Each .lua file's header documents
 * its KEYS, ARGV, replies and negative codes.
 */

/** Negative first elements of script replies. Stable: the .lua files use these literal numbers. */
export enum LuaErrorCode {
  StaleState = -1,
  LeaseLost = -2,
  LeaseHeld = -3,
  OrderNotFound = -4,
  NonceAhead = -5,
}

/** The ONE mapping from a script's negative code to the error the caller sees. */
export function errorForLuaCode(code: number, context: ErrorContext = {}): TradebotError {
  switch (code) {
    case LuaErrorCode.StaleState:
      return new StaleStateError('order status changed meanwhile (compare-and-set lost)', context);
    case LuaErrorCode.LeaseLost:
      return new LeaseLostError('this replica does not hold the lease (fencing token superseded or expired)', context);
    case LuaErrorCode.LeaseHeld:
      return new LeaseLostError('the lease is held by another owner', context);
    case LuaErrorCode.OrderNotFound:
      // No record means no status to move from: the event cannot apply.
      return new InvalidTransitionError('no journal record for this client order id', { ...context, from: null });
    case LuaErrorCode.NonceAhead:
      return new NotReadyError('nonce allocator is too far ahead of the clock', context);
    default:
      return new StoreUnavailableError(`unexpected store script reply code ${code}`, context);
  }
}

/**
 * Where the .lua files are at run time. The build (tsc) does not copy them, so compiled code in
 * `dist/src/store/` cannot look beside itself. Both `src/store/scripts.ts` (ts-jest) and
 * `dist/src/store/scripts.js` walk up from their own folder to the first ancestor that holds
 * `src/store/scripts/<a known script>`: that is the package root in both cases (checking for the
 * script file rather than package.json skips a `dist/package.json` that tsc may emit).
 * Deployments therefore ship `src/store/scripts/*.lua` next to `dist/` (the Dockerfile must copy it).
 */
export function findScriptsDir(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    const candidate = join(dir, 'src', 'store', 'scripts');
    if (existsSync(join(candidate, 'reserve-nonce.lua'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new StoreUnavailableError(`Lua scripts not found: no src/store/scripts above ${start}`, { start });
    }
    dir = parent;
  }
}

const SCRIPT_FILES = {
  tbReserveNonce: { file: 'reserve-nonce.lua', keys: 1 },
  tbRepairNonce: { file: 'repair-nonce.lua', keys: 1 },
  tbRaiseNonce: { file: 'raise-nonce.lua', keys: 1 },
  tbTakeTokens: { file: 'take-tokens.lua', keys: 1 },
  tbRecordOrder: { file: 'record-order.lua', keys: 7 },
  tbTransitionOrder: { file: 'transition-order.lua', keys: 5 },
  tbAcquireLease: { file: 'acquire-lease.lua', keys: 2 },
  tbRenewLease: { file: 'renew-lease.lua', keys: 1 },
  tbReleaseLease: { file: 'release-lease.lua', keys: 1 },
  tbAppendRecord: { file: 'append-record.lua', keys: 1 },
  tbSetTradingState: { file: 'set-trading-state.lua', keys: 1 },
  tbReportTradingState: { file: 'report-trading-state.lua', keys: 2 },
  tbReadTradingStateReplicas: { file: 'read-trading-state-replicas.lua', keys: 2 },
} as const;
type ScriptName = keyof typeof SCRIPT_FILES;

let sources: Record<ScriptName, string> | undefined;
function loadSources(): Record<ScriptName, string> {
  if (!sources) {
    const dir = findScriptsDir();
    const loaded = {} as Record<ScriptName, string>;
    for (const [name, spec] of Object.entries(SCRIPT_FILES) as [ScriptName, (typeof SCRIPT_FILES)[ScriptName]][]) {
      loaded[name] = readFileSync(join(dir, spec.file), 'utf8');
    }
    sources = loaded;
  }
  return sources;
}

/** Script source text by file name (for child processes in tests and benchmarks). */
export function scriptSource(file: (typeof SCRIPT_FILES)[ScriptName]['file']): string {
  const entry = Object.entries(SCRIPT_FILES).find(([, spec]) => spec.file === file);
  if (!entry) throw new StoreUnavailableError(`unknown script ${file}`);
  return loadSources()[entry[0] as ScriptName];
}

/** Raw reply of a script: nested arrays of strings and integers. */
export type ScriptReply = (string | number | null | ScriptReply)[];
type Arg = string | number;

/** Typed calls of every store script on one connection. Arguments are in the .lua headers' order. */
export interface StoreScripts {
  reserveNonce(key: string, nowMs: number, maxLeadMs: number, ttlMs: number, ceilingMs: number): Promise<ScriptReply>;
  repairNonce(key: string, nowMs: number, ceilingMs: number, ttlMs: number): Promise<ScriptReply>;
  raiseNonce(key: string, floorMs: number, ttlMs: number): Promise<ScriptReply>;
  takeTokens(key: string, capacity: number, ratePerMs: number, want: number, ttlMs: number): Promise<ScriptReply>;
  recordOrder(keys: readonly [string, string, string, string, string, string, string], args: readonly Arg[]): Promise<ScriptReply>;
  /** recordOrder, then WAIT for `replicas` in one round trip on the keys' node; also the number of replicas that acknowledged. */
  recordOrderAcked(keys: readonly [string, string, string, string, string, string, string], args: readonly Arg[], replicas: number, timeoutMs: number): Promise<[ScriptReply, number]>;
  transitionOrder(keys: readonly [string, string, string, string, string], args: readonly Arg[]): Promise<ScriptReply>;
  acquireLease(leaseKey: string, fenceKey: string, owner: string, ttlMs: number, deadOwner: string): Promise<ScriptReply>;
  renewLease(leaseKey: string, owner: string, token: string, ttlMs: number): Promise<ScriptReply>;
  releaseLease(leaseKey: string, owner: string, token: string): Promise<ScriptReply>;
  appendRecord(key: string, score: number, line: string, oldest: number, maxEntries: number, firstOnly: boolean): Promise<ScriptReply>;
  setTradingState(key: string, state: string, reason: string, atMs: number, newEpoch: string): Promise<ScriptReply>;
  reportTradingState(appliedKey: string, seenKey: string, instance: string, json: string, forgetAfterMs: number): Promise<number>;
  readTradingStateReplicas(appliedKey: string, seenKey: string): Promise<ScriptReply>;
}

type Dynamic = Record<ScriptName, (...args: Arg[]) => Promise<ScriptReply>>;
const registered = new WeakMap<RedisConnection, StoreScripts>();

/** Defines the scripts on `redis` once (idempotent per connection object) and returns typed wrappers. */
export function storeScripts(redis: RedisConnection): StoreScripts {
  const existing = registered.get(redis);
  if (existing) return existing;
  const src = loadSources();
  for (const name of Object.keys(SCRIPT_FILES) as ScriptName[]) {
    redis.defineCommand(name, { lua: src[name], numberOfKeys: SCRIPT_FILES[name].keys });
  }
  const r = redis as unknown as Dynamic;
  const scripts: StoreScripts = {
    reserveNonce: (key, nowMs, maxLeadMs, ttlMs, ceilingMs) => r.tbReserveNonce(key, Math.trunc(nowMs), maxLeadMs, ttlMs, Math.trunc(ceilingMs)),
    repairNonce: (key, nowMs, ceilingMs, ttlMs) => r.tbRepairNonce(key, Math.trunc(nowMs), Math.trunc(ceilingMs), ttlMs),
    raiseNonce: (key, floorMs, ttlMs) => r.tbRaiseNonce(key, Math.trunc(floorMs), ttlMs),
    // %.17g keeps the float rate exact through the string conversion
    takeTokens: (key, capacity, ratePerMs, want, ttlMs) => r.tbTakeTokens(key, capacity, ratePerMs.toPrecision(17), want, ttlMs),
    recordOrder: (keys, args) => r.tbRecordOrder(...keys, ...args),
    recordOrderAcked: async (keys, args, replicas, timeoutMs) => {
      const pipeline = redis.pipeline() as unknown as Dynamic & { wait(n: number, ms: number): unknown; exec(): Promise<[Error | null, unknown][] | null> };
      pipeline.tbRecordOrder(...keys, ...args);
      pipeline.wait(replicas, timeoutMs);
      const [recorded, acked] = (await pipeline.exec()) ?? [];
      if (recorded?.[0]) throw recorded[0];
      if (acked?.[0]) throw acked[0];
      return [recorded?.[1] as ScriptReply, Number(acked?.[1])];
    },
    transitionOrder: (keys, args) => r.tbTransitionOrder(...keys, ...args),
    acquireLease: (leaseKey, fenceKey, owner, ttlMs, deadOwner) => r.tbAcquireLease(leaseKey, fenceKey, owner, ttlMs, deadOwner),
    renewLease: (leaseKey, owner, token, ttlMs) => r.tbRenewLease(leaseKey, owner, token, ttlMs),
    releaseLease: (leaseKey, owner, token) => r.tbReleaseLease(leaseKey, owner, token),
    appendRecord: (key, score, line, oldest, maxEntries, firstOnly) => r.tbAppendRecord(key, score, line, oldest, maxEntries, firstOnly ? '1' : '0'),
    setTradingState: (key, state, reason, atMs, newEpoch) => r.tbSetTradingState(key, state, reason, Math.trunc(atMs), newEpoch),
    reportTradingState: async (appliedKey, seenKey, instance, json, forgetAfterMs) => Number(await r.tbReportTradingState(appliedKey, seenKey, instance, json, forgetAfterMs)),
    readTradingStateReplicas: (appliedKey, seenKey) => r.tbReadTradingStateReplicas(appliedKey, seenKey),
  };
  registered.set(redis, scripts);
  return scripts;
}

/** First element of a reply as a number (the status or negative code). */
export function replyCode(reply: ScriptReply): number {
  const code = reply[0];
  if (typeof code !== 'number') throw new StoreUnavailableError('malformed store script reply', { reply: JSON.stringify(reply) });
  return code;
}

/** A HGETALL-style flat array as an object. */
export function pairsToObject(flat: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(flat)) return out;
  for (let i = 0; i + 1 < flat.length; i += 2) out[String(flat[i])] = String(flat[i + 1]);
  return out;
}
