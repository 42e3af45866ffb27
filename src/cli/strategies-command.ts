import * as path from 'node:path';
import type { Command } from 'commander';
import { describeStrategies } from '../strategy/guest/describe-strategies';
import { defaultConfigFile } from './cli-basics';
import { loadConfig } from '../config/load';

interface DirOptions {
  dir?: string;
  config?: string;
}

/** The strategy directory: --dir, else the config's strategies.dir when the config loads, else `strategies`. */
function strategyDir(opts: DirOptions): string {
  if (opts.dir !== undefined) return path.resolve(opts.dir);
  try {
    return path.resolve(loadConfig(opts.config ?? defaultConfigFile(), process.env).strategies.dir);
  } catch {
    return path.resolve('strategies');
  }
}

/**
 * `tradebot strategies list|validate [--dir D]`: every module of the directory with its name,
 * markets, interval, warm-up and default params (list), or only the problems (validate: exit 1 when
 * any module fails to load or validate, naming the file and the reason). Each module is loaded in its
 * own throwaway guest (describeStrategies), as the daemon does: none of its code runs in this process,
 * which may hold the API secret in its environment.
 */
export function registerStrategiesCommand(program: Command): void {
  const cmd = program.command('strategies').description('list or validate the strategy modules');
  cmd
    .command('list')
    .description('list the strategy modules of the directory')
    .option('--dir <dir>', 'strategy directory (default: the config\'s strategies.dir, else strategies)')
    .option('-c, --config <file>', 'config file used for the default directory')
    .option('--json', 'print JSON')
    .action(async (opts: DirOptions & { json?: boolean }) => {
      const dir = strategyDir(opts);
      const result = await describeStrategies(dir, {});
      const rows = result.strategies.map((s) => ({
        name: s.name, file: path.relative(process.cwd(), s.file), markets: s.markets, interval: s.interval, warmup: s.warmup,
        params: s.params, description: s.description, version: s.identity.version,
      }));
      if (opts.json === true) {
        process.stdout.write(`${JSON.stringify({ dir, strategies: rows, errors: result.errors.map((e) => ({ file: e.context['file'], message: e.message })) }, null, 2)}\n`);
      } else {
        for (const r of rows) {
          process.stdout.write(`${r.name}  (${r.file}, version ${r.version})\n  ${r.markets.join(', ')} ${r.interval}, warm-up ${r.warmup}\n  params ${JSON.stringify(r.params)}\n${r.description ? `  ${r.description}\n` : ''}`);
        }
        for (const e of result.errors) process.stderr.write(`${e.code} ${withFile(e)}\n`);
      }
      if (result.errors.length > 0) process.exitCode = 1;
    });
  cmd
    .command('validate')
    .description('load and validate every strategy module; exit 1 if any fails')
    .option('--dir <dir>', 'strategy directory (default: the config\'s strategies.dir, else strategies)')
    .option('-c, --config <file>', 'config file used for the default directory')
    .action(async (opts: DirOptions) => {
      const dir = strategyDir(opts);
      const result = await describeStrategies(dir, {});
      for (const s of result.strategies) process.stdout.write(`ok  ${s.name}  (${path.relative(process.cwd(), s.file)})\n`);
      for (const e of result.errors) process.stderr.write(`ERR ${e.code} ${withFile(e)}\n`);
      process.stdout.write(`${result.strategies.length} valid, ${result.errors.length} invalid in ${dir}\n`);
      if (result.errors.length > 0) process.exitCode = 1;
    });
}

/** The error message, prefixed with the module file when the message does not name it already. */
function withFile(e: { message: string; context: Readonly<Record<string, unknown>> }): string {
  const file = typeof e.context['file'] === 'string' ? e.context['file'] : '';
  return file === '' || e.message.includes(file) ? e.message : `${file}: ${e.message}`;
}
