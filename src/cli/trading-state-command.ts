import type { Command } from 'commander';
import { openAccountStore } from '../app/account-store';
import { loadConfig } from '../config/load';
import { ConfigError } from '../domain/errors';
import type { TradingState } from '../risk/trading-state';
import { RedisTradingStateStore } from '../trading-state/trading-state-store';
import { formatError } from './api-command';
import { defaultConfigFile } from './run-command';

const COMMANDS: readonly { name: string; state: TradingState; signal?: NodeJS.Signals; help: string }[] = [
  { name: 'pause', state: 'halted', signal: 'SIGUSR1', help: 'halt trading: no new orders (cancels still pass); resting orders and the kill-switch refresh stay' },
  { name: 'resume', state: 'active', signal: 'SIGUSR2', help: 'resume normal trading' },
  { name: 'reduce-only', state: 'reducing', help: 'only exits and cancels pass (wind positions down)' },
];

interface Options {
  config?: string;
  reason?: string;
  pid?: string;
}

/**
 * `tradebot pause|resume|reduce-only [--config F] [--reason R] [--pid P]`: switches a running
 * daemon's trading state. With Redis, writes the account's control key, which the daemon reads
 * every second (and honours after a restart). Without Redis (paper, in-process), `--pid` sends the
 * daemon SIGUSR1 (pause) or SIGUSR2 (resume).
 */
export function registerTradingStateCommands(program: Command): void {
  for (const c of COMMANDS) {
    program
      .command(c.name)
      .description(c.help)
      .option('-c, --config <file>', 'config file; default $TRADEBOT_CONFIG or config/paper.yaml')
      .option('--reason <text>', 'why (logged by the daemon)', `tradebot ${c.name} by ${process.env['USER'] ?? 'operator'}`)
      .option('--pid <pid>', c.signal ? `signal this daemon process (${c.signal}) instead of writing Redis` : 'not available for this state (no signal)')
      .action(async (opts: Options) => {
        try {
          process.stdout.write(`${await setTradingState(c.state, c.signal, opts, process.env)}\n`);
        } catch (err) {
          process.stderr.write(formatError(err));
          process.exitCode = 1;
        }
      });
  }
}

export async function setTradingState(state: TradingState, signal: NodeJS.Signals | undefined, opts: Options, env: NodeJS.ProcessEnv): Promise<string> {
  if (opts.pid !== undefined) {
    const pid = Number(opts.pid);
    if (!Number.isInteger(pid) || pid <= 0) throw new ConfigError(`--pid must be a process id, got ${opts.pid}`, { path: 'pid' });
    if (signal === undefined) throw new ConfigError(`state ${state} has no signal: use Redis (TRADEBOT_REDIS_URL)`, { path: 'pid' });
    process.kill(pid, signal);
    return `sent ${signal} to ${pid}: trading state -> ${state}`;
  }
  const config = loadConfig(opts.config ?? defaultConfigFile(env), env);
  const store = await openAccountStore(config, env, `tradebot ${state} (without --pid)`);
  try {
    await new RedisTradingStateStore(store.redis, store.keys).write({ state, reason: opts.reason ?? 'cli', atMs: Date.now() });
    return `trading state -> ${state} (account ${store.keys.account}); a running daemon applies it within about a second`;
  } finally {
    await store.close();
  }
}
