import type { Command } from 'commander';
import { withOperatorActions } from '../app/operator-wiring';
import { loadConfig } from '../config/load';
import { ConfigError } from '../domain/errors';
import type { TradingState } from '../trading-state/trading-state';
import { cliOperator } from './cli-operator';
import { defaultConfigFile, formatError } from './cli-basics';

export { EXIT_NOT_CONFIRMED } from '../operator/trading-state-change';

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
  return withOperatorActions(config, env, cwd, 'tradebot pause|resume|reduce-only', async (actions) => {
    const outcome = await actions.setTradingState(cliOperator(env), state, opts.reason ?? 'cli', waitMs);
    return { code: outcome.code, text: outcome.audited ? outcome.text : `${outcome.text}\n(warning: not written to the audit log)` };
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

