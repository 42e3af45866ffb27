import { Command } from 'commander';
import { registerApiCommand } from './api-command';
import { registerBacktestCommand } from './backtest-command';
import { registerDownloadCommand } from './download-command';
import { registerRunCommand } from './run-command';
import { registerCheckConfigCommand } from './check-config-command';
import { registerStrategiesCommand } from './strategies-command';
import { registerOrdersCommand } from './orders-command';
import { registerTradingStateCommands } from './trading-state-command';
import { registerSimExchangeCommand } from './sim-exchange-command';
import { packageVersion } from './package-version';
import { registerStatusCommand } from './status-command';

/**
 * Every subcommand registers itself from its own file `src/cli/<name>-command.ts`. Adding a
 * command is one import and one entry in this list.
 */
const COMMANDS: readonly ((program: Command) => void)[] = [
  registerApiCommand,
  registerDownloadCommand,
  registerBacktestCommand,
  registerRunCommand,
  registerCheckConfigCommand,
  registerStrategiesCommand,
  registerOrdersCommand,
  registerTradingStateCommands,
  registerStatusCommand,
  registerSimExchangeCommand,
];

export function buildProgram(): Command {
  const program = new Command('tradebot')
    .description('Automated trading bot daemon with a simulated exchange')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError();
  for (const register of COMMANDS) register(program);
  return program;
}
