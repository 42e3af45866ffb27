import type { Command } from 'commander';
import { runDaemon } from '../app/lifecycle';
import { defaultConfigFile } from './cli-basics';
import { packageVersion } from './package-version';

/**
 * `tradebot run [--config F]`: the daemon. Exits 0 after a clean SIGTERM/SIGINT, 1 on a fatal error
 * or when the shutdown grace delay runs out, 78 when the config or strategies are invalid.
 */
export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run the trading daemon (paper or live, as the config says)')
    .option('-c, --config <file>', 'config file (YAML); default $TRADEBOT_CONFIG or config/paper.yaml')
    .action(async (opts: { config?: string }) => {
      const code = await runDaemon({ configFile: opts.config ?? defaultConfigFile(), version: packageVersion() });
      process.exit(code);
    });
}
