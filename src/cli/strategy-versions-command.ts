import { usesRedis } from '../config/redis-target';
import type { Command } from 'commander';
import { accountKeys, openAccountStore } from '../app/account-store';
import { controlStore } from '../app/strategy-versions-wiring';
import { strategyStateDir } from '../app/state-dirs';
import { loadConfig, type FrozenConfig } from '../config/load';
import { ConfigError } from '../domain/errors';
import type { ControlCommand, StrategyControlStore } from '../strategy-control/control-store';
import { withOperatorActions } from '../app/operator-wiring';
import { cliOperator } from './cli-operator';
import type { VersionStatus } from '../strategy/versions/versioned-host';
import { defaultConfigFile, formatError } from './cli-basics';

interface Options {
  config?: string;
  strategy?: string;
  pid?: string;
  timeout?: string;
  json?: boolean;
}

/**
 * `tradebot reload [--strategy NAME] | promote NAME | rollback NAME | strategy-resume NAME | shadow [NAME]` on a running
 * daemon (docs/strategies.md "Changing a running strategy"). The request goes where the daemon
 * reads it every second: its Redis (the account's control keys), or without Redis the files under
 * `strategies.stateDir`; the command waits for the daemon's answer and exits 1 on a refusal.
 * `reload --pid P` is refused: the daemon no longer reloads on SIGHUP (a reload runs new strategy
 * code, and anything running as the daemon's user can send a signal).
 */
export function registerStrategyVersionCommands(program: Command): void {
  const common = (c: Command): Command => c
    .option('-c, --config <file>', 'config file; default $TRADEBOT_CONFIG or config/paper.yaml')
    .option('--timeout <seconds>', 'how long to wait for the daemon\'s answer', '60');
  common(program.command('reload').description('re-read the config and strategy modules: a changed strategy starts as a shadow'))
    .option('--strategy <name>', 'only this strategy')
    .option('--pid <pid>', 'refused: the daemon ignores SIGHUP; a reload goes through the control store')
    .action(async (opts: Options) => run(() => request('reload', { strategy: opts.strategy }, opts)));
  common(program.command('promote <name>').description('make the shadow version of a strategy live (between two candles)'))
    .action(async (name: string, opts: Options) => run(() => request('promote', { strategy: name }, opts)));
  common(program.command('rollback <name>').description('return a strategy to the version live before'))
    .action(async (name: string, opts: Options) => run(() => request('rollback', { strategy: name }, opts)));
  common(program.command('strategy-resume <name>').description('resume a strategy paused after repeated failures, and lift its guardrails (drawdown stop, cooldowns); the daemon answers what it applied'))
    .action(async (name: string, opts: Options) => run(() => request('resume', { strategy: name }, opts)));
  common(program.command('cancel <clientOrderId>').description('cancel one order the daemon placed (both legs of an OCO); the replica holding its lease cancels it and answers'))
    .action(async (id: string, opts: Options) => run(() => request('cancel', { clientOrderId: id }, opts)));
  program.command('shadow [name]').description('live and shadow versions, and candle by candle where they differ')
    .option('-c, --config <file>', 'config file; default $TRADEBOT_CONFIG or config/paper.yaml')
    .option('--json', 'print the status as JSON')
    .action(async (name: string | undefined, opts: Options) => run(() => shadow(name, opts)));
}

async function run(job: () => Promise<{ ok: boolean; text: string }>): Promise<void> {
  try {
    const r = await job();
    process.stdout.write(`${r.text}\n`);
    if (!r.ok) process.exitCode = 1;
  } catch (err) {
    process.stderr.write(formatError(err));
    process.exitCode = 1;
  }
}

async function withStore<T>(opts: Options, job: (store: StrategyControlStore) => Promise<T>): Promise<T> {
  const env = process.env;
  const config: FrozenConfig = loadConfig(opts.config ?? defaultConfigFile(env), env);
  if (!usesRedis(config)) return job(controlStore(strategyStateDir(config, process.cwd()), undefined, accountKeys(config, env)));
  const opened = await openAccountStore(config, env, 'tradebot reload|promote|rollback|strategy-resume|shadow');
  try {
    return await job(controlStore('', opened.redis, opened.keys));
  } finally {
    await opened.close();
  }
}

async function request(command: ControlCommand, target: { strategy?: string | undefined; clientOrderId?: string | undefined }, opts: Options): Promise<{ ok: boolean; text: string }> {
  if (opts.pid !== undefined) {
    throw new ConfigError('reload --pid is refused: the daemon ignores SIGHUP (a reload runs new strategy code, and anything running as its user can send a signal); run `tradebot reload --config <file>` without --pid, which waits for the daemon\'s answer', { path: 'pid' });
  }
  const timeoutMs = Number(opts.timeout ?? '60') * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new ConfigError(`--timeout must be a positive number of seconds, got ${opts.timeout}`, { path: 'timeout' });
  const env = process.env;
  const config = loadConfig(opts.config ?? defaultConfigFile(env), env);
  return withOperatorActions(config, env, process.cwd(), 'tradebot reload|promote|rollback|strategy-resume|cancel', async (actions) => {
    const outcome = await actions.requestChange(cliOperator(env), command, target, timeoutMs);
    return { ok: outcome.ok === true, text: outcome.audited ? outcome.text : `${outcome.text}\n(warning: not written to the audit log)` };
  });
}

async function shadow(name: string | undefined, opts: Options): Promise<{ ok: boolean; text: string }> {
  return withStore(opts, async (store) => {
    const text = await store.readStatus();
    if (text === undefined) return { ok: false, text: 'no status written yet: is the daemon running with this config?' };
    const status = JSON.parse(text) as { atMs: number; strategies: VersionStatus[] };
    const rows = status.strategies.filter((s) => name === undefined || s.strategy === name);
    if (name !== undefined && rows.length === 0) return { ok: false, text: `unknown strategy ${name} (running: ${status.strategies.map((s) => s.strategy).join(', ')})` };
    if (opts.json === true) return { ok: true, text: JSON.stringify({ atMs: status.atMs, strategies: rows }, null, 2) };
    return { ok: true, text: [`as of ${new Date(status.atMs).toISOString()}`, ...rows.flatMap(formatStatus)].join('\n') };
  });
}

export function formatStatus(s: VersionStatus): string[] {
  const lines = [`${s.strategy}: live ${s.live.version} params ${JSON.stringify(s.live.params)}${s.previous.length > 0 ? ` (before: ${s.previous.join(', ')})` : ''}`];
  if (s.paused !== undefined) lines.push(`  PAUSED since ${new Date(s.paused.sinceMs).toISOString()}: ${s.paused.reason}`);
  const sh = s.shadow;
  if (sh === undefined) return [...lines, '  no shadow'];
  const d = sh.summary.divergences;
  // cleanCandles counts candles since the shadow last failed (error, overrun, crash), divergent ones
  // included: said as "without failing" so that it never reads as "without diverging".
  const run = sh.summary.cleanCandles === sh.summary.candles ? 'on every one' : `on the last ${sh.summary.cleanCandles} in a row`;
  lines.push(`  shadow ${sh.version} params ${JSON.stringify(sh.params)}: ${sh.summary.candles} candles compared, ${sh.summary.divergentCandles} divergent `
    + `(only live ${d.only_live}, only shadow ${d.only_shadow}, different ${d.different}); the shadow ran without failing ${run} (what strategies.shadowCandles counts)`);
  for (const c of sh.summary.recent) {
    lines.push(`  ${new Date(c.candleTime * 1000).toISOString()} ${c.market}:`);
    for (const x of c.divergences) lines.push(`    ${x.kind.padEnd(11)} ${x.key}${x.live === undefined ? '' : ` live: ${x.live}`}${x.shadow === undefined ? '' : ` shadow: ${x.shadow}`}`);
  }
  return lines;
}
