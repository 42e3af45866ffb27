import type { Command } from 'commander';
import { usesRedis } from '../config/redis-target';
import { openAccountStore } from '../app/account-store';
import { tradingStateDir } from '../app/state-wiring';
import { loadConfig, type FrozenConfig } from '../config/load';
import { ConfigError } from '../domain/errors';
import type { TradingState } from '../trading-state/trading-state';
import { FileTradingStateStore } from '../trading-state/file-trading-state-store';
import { RedisTradingStateStore, REPLICA_ALIVE_MS, type ReplicaReport, type StoredPosition, type TradingStateStore } from '../trading-state/trading-state-store';
import { formatError } from './api-command';
import { defaultConfigFile } from './run-command';

/** Exit code when the state was stored but no daemon (or not every running replica) confirmed it in time. */
export const EXIT_NOT_CONFIRMED = 2;

const COMMANDS: readonly { name: string; state: TradingState; help: string }[] = [
  { name: 'pause', state: 'halted', help: 'halt trading: no new orders (cancels still pass); resting orders and the kill-switch refresh stay' },
  { name: 'resume', state: 'active', help: 'resume normal trading' },
  { name: 'reduce-only', state: 'reducing', help: 'only exits and cancels pass (wind positions down)' },
];

export interface TradingStateOptions {
  config?: string;
  reason?: string;
  pid?: string;
  waitSeconds?: string;
}

export interface TradingStateOutcome {
  readonly code: number;
  readonly text: string;
}

/**
 * `tradebot pause|resume|reduce-only [--config F] [--reason R] [--wait-seconds N]`: switches a
 * running daemon's trading state through the store (the account's Redis hash, or without Redis the
 * file in the strategies' state directory), which gives the record its sequence number; then waits
 * until every daemon replica seen alive reports it applied that record. Exit 0 when they did, 2
 * when none or not all confirmed within N s (the record stays stored and applies at start), 1 on
 * an error. `pause --pid P` sends SIGUSR1 instead; a signal never resumes (docs/daemon.md "Signals").
 */
export function registerTradingStateCommands(program: Command): void {
  for (const c of COMMANDS) {
    program
      .command(c.name)
      .description(c.help)
      .option('-c, --config <file>', 'config file; default $TRADEBOT_CONFIG or config/paper.yaml')
      .option('--reason <text>', 'why (logged by the daemon)', `tradebot ${c.name} by ${process.env['USER'] ?? 'operator'}`)
      .option('--wait-seconds <n>', 'how long to wait for every running daemon to confirm (0: do not wait)', '10')
      .option('--pid <pid>', c.state === 'halted' ? 'send this daemon process SIGUSR1 instead (not confirmed)' : 'refused: a signal cannot change the state to this one')
      .action(async (opts: TradingStateOptions) => {
        try {
          const outcome = await setTradingState(c.state, opts, process.env);
          (outcome.code === 0 ? process.stdout : process.stderr).write(`${outcome.text}\n`);
          process.exitCode = outcome.code;
        } catch (err) {
          process.stderr.write(formatError(err));
          process.exitCode = 1;
        }
      });
  }
}

export async function setTradingState(state: TradingState, opts: TradingStateOptions, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): Promise<TradingStateOutcome> {
  const waitMs = parseWaitSeconds(opts.waitSeconds ?? '10') * 1000;
  if (opts.pid !== undefined) return signalPause(state, opts.pid);
  const config = loadConfig(opts.config ?? defaultConfigFile(env), env);
  return withTradingStateStore(config, env, cwd, async (store, where) => {
    const position = await store.write({ state, reason: opts.reason ?? 'cli', atMs: Date.now() });
    const stored = `trading state -> ${state} stored (seq ${position.seq}, ${where})`;
    if (waitMs === 0) return { code: 0, text: `${stored}; not waiting for the daemon (--wait-seconds 0)` };
    return describeWait(stored, state, position, await waitForReplicas(store, position, waitMs), waitMs);
  });
}

function parseWaitSeconds(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 3600) throw new ConfigError(`--wait-seconds must be a number of seconds from 0 to 3600, got ${JSON.stringify(text)}`, { path: 'wait-seconds' });
  return n;
}

function signalPause(state: TradingState, pidText: string): TradingStateOutcome {
  if (state !== 'halted') {
    const command = state === 'active' ? 'resume' : 'reduce-only';
    throw new ConfigError(`${command} --pid is refused: a signal cannot loosen the trading state (anything running as the daemon's user could send it); run \`tradebot ${command} --config <file>\`, which goes through the store and waits for the daemon to confirm`, { path: 'pid' });
  }
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) throw new ConfigError(`--pid must be a process id, got ${pidText}`, { path: 'pid' });
  process.kill(pid, 'SIGUSR1');
  return { code: 0, text: `sent SIGUSR1 to ${pid}: the daemon halts and stores it (not confirmed here; \`tradebot status\` shows it)` };
}

/** The trading-state store a daemon with this config uses: its Redis, or the file in its state directory. */
export async function withTradingStateStore<T>(config: FrozenConfig, env: NodeJS.ProcessEnv, cwd: string, job: (store: TradingStateStore, where: string) => Promise<T>): Promise<T> {
  if (!usesRedis(config)) {
    const dir = tradingStateDir(config, cwd);
    return job(new FileTradingStateStore(dir), `file ${dir}/trading-state.json`);
  }
  const account = await openAccountStore(config, env, 'tradebot pause|resume|reduce-only');
  try {
    return await job(new RedisTradingStateStore(account.redis, account.keys), `account ${account.keys.account}`);
  } finally {
    await account.close();
  }
}

interface WaitResult {
  /** Replicas alive at the end, split by whether they applied the record (or a later one). */
  readonly confirmed: readonly ReplicaReport[];
  readonly pending: readonly ReplicaReport[];
  readonly elapsedMs: number;
}

/** Polls the replicas' reports until every alive one applied `position` (and at least one is alive), or the time is up. */
async function waitForReplicas(store: TradingStateStore, position: StoredPosition, waitMs: number): Promise<WaitResult> {
  const started = Date.now();
  for (;;) {
    const alive = (await store.readReplicas()).filter((r) => r.ageMs <= REPLICA_ALIVE_MS);
    const applied = (r: ReplicaReport): boolean => r.epoch === position.epoch && r.appliedSeq >= position.seq;
    const confirmed = alive.filter(applied);
    const pending = alive.filter((r) => !applied(r));
    const elapsedMs = Date.now() - started;
    if ((confirmed.length > 0 && pending.length === 0) || elapsedMs >= waitMs) return { confirmed, pending, elapsedMs };
    await new Promise((r) => setTimeout(r, 200));
  }
}

function describeWait(stored: string, state: TradingState, position: StoredPosition, wait: WaitResult, waitMs: number): TradingStateOutcome {
  const seconds = waitMs / 1000;
  const line = (r: ReplicaReport): string => `  ${r.instance}: applied seq ${r.appliedSeq}, now ${r.state}`;
  if (wait.confirmed.length === 0 && wait.pending.length === 0) {
    return { code: EXIT_NOT_CONFIRMED, text: `${stored}, but the daemon did not confirm within ${seconds} s: no daemon reported with this config (is one running?). The state stays stored and applies when a daemon starts.` };
  }
  if (wait.pending.length > 0) {
    return {
      code: EXIT_NOT_CONFIRMED,
      text: [`${stored}, but the daemon did not confirm within ${seconds} s: ${wait.pending.length} running replica(s) did not apply it:`, ...wait.pending.map(line),
        ...(wait.confirmed.length > 0 ? ['applied by:', ...wait.confirmed.map(line)] : [])].join('\n'),
    };
  }
  // Applied, but a later record (another operator, an automatic halt) may have replaced it since.
  const other = wait.confirmed.filter((r) => r.state !== state);
  if (other.length > 0) {
    return {
      code: EXIT_NOT_CONFIRMED,
      text: [`${stored}; applied, but a later change (seq > ${position.seq}) superseded it on:`, ...other.map(line), 'see `tradebot status`'].join('\n'),
    };
  }
  const count = wait.confirmed.length;
  return { code: 0, text: [`${stored}: applied by ${count} running replica${count === 1 ? '' : 's'} within ${(wait.elapsedMs / 1000).toFixed(1)} s`, ...wait.confirmed.map(line)].join('\n') };
}
