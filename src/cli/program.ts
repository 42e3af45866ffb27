import { Command } from 'commander';
import { packageVersion } from './package-version';

type Register = (program: Command) => void;

/**
 * Every subcommand registers itself from its own file `src/cli/<name>-command.ts`. Adding a
 * command is one entry in this table: the command names it registers, and how to load it.
 *
 * Loaded lazily: each module pulls in what its command needs (Redis, HTTP, metrics, the
 * simulator), and loading all of them costs more than a whole backtest of a month. A run of one
 * command loads only that command's module; help and unknown commands load them all.
 */
const COMMANDS: readonly { readonly names: readonly string[]; readonly load: () => Register }[] = [
  { names: ['api'], load: () => (require('./api-command') as typeof import('./api-command')).registerApiCommand },
  { names: ['download'], load: () => (require('./download-command') as typeof import('./download-command')).registerDownloadCommand },
  { names: ['backtest'], load: () => (require('./backtest-command') as typeof import('./backtest-command')).registerBacktestCommand },
  { names: ['run'], load: () => (require('./run-command') as typeof import('./run-command')).registerRunCommand },
  { names: ['check-config'], load: () => (require('./check-config-command') as typeof import('./check-config-command')).registerCheckConfigCommand },
  { names: ['strategies'], load: () => (require('./strategies-command') as typeof import('./strategies-command')).registerStrategiesCommand },
  { names: ['orders'], load: () => (require('./orders-command') as typeof import('./orders-command')).registerOrdersCommand },
  { names: ['pause', 'resume', 'reduce-only'], load: () => (require('./trading-state-command') as typeof import('./trading-state-command')).registerTradingStateCommands },
  { names: ['reload', 'shadow', 'promote', 'rollback', 'strategy-resume', 'cancel'], load: () => (require('./strategy-versions-command') as typeof import('./strategy-versions-command')).registerStrategyVersionCommands },
  { names: ['status'], load: () => (require('./status-command') as typeof import('./status-command')).registerStatusCommand },
  { names: ['worker'], load: () => (require('./worker-command') as typeof import('./worker-command')).registerWorkerCommand },
  { names: ['sweep'], load: () => (require('./sweep-command') as typeof import('./sweep-command')).registerSweepCommand },
  { names: ['drift'], load: () => (require('./drift-command') as typeof import('./drift-command')).registerDriftCommand },
  { names: ['console-token'], load: () => (require('./console-token-command') as typeof import('./console-token-command')).registerConsoleTokenCommand },
  { names: ['sim-exchange'], load: () => (require('./sim-exchange-command') as typeof import('./sim-exchange-command')).registerSimExchangeCommand },
];

/** The program with every command, or, given the process arguments, only the command they name (when known). */
export function buildProgram(argv?: readonly string[]): Command {
  const program = new Command('tradebot')
    .description('Automated trading bot daemon with a simulated exchange')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError();
  const named = argv?.[2];
  const only = COMMANDS.find((c) => named !== undefined && c.names.includes(named));
  for (const c of only === undefined ? COMMANDS : [only]) c.load()(program);
  return program;
}
