import type { Command } from 'commander';
import { consoleAccess } from '../app/console-wiring';
import { loadNotificationChannels } from '../notify/channel-config';
import { usesRedis } from '../config/redis-target';
import { guestIsolationMinimum, guestIsolationOf } from '../app/guest-isolation';
import { EXIT_CONFIG } from '../app/lifecycle';
import { checkStrategyMarkets, unlistedLines, venueMarkets, type VenueMarkets } from '../app/market-check';
import { describeConfiguredStrategies } from '../app/strategy-wiring';
import { loadCredentials } from '../config/credentials';
import { loadConfig, type FrozenConfig } from '../config/load';
import { defaultConfigFile, formatError } from './cli-basics';

/**
 * `tradebot check-config [--config F]`: validates the config (schema, environment overrides, no
 * secrets in the file) AND the strategies: every enabled one exists and its params validate, and no
 * module of the strategy directory fails to load, and every enabled market is one the venue offers
 * (paper: `paper.markets`; a running simulator or live: the venue's public market list, when it
 * answers within seconds; when it does not, a WARNING line says the markets were not checked). Prints an OK summary (exit 0) or every error
 * naming the key path or the file (exit 78, as `run` would).
 */
export function registerCheckConfigCommand(program: Command): void {
  program
    .command('check-config')
    .description('validate the config file and the enabled strategies, then print a summary')
    .option('-c, --config <file>', 'config file; default $TRADEBOT_CONFIG or config/paper.yaml')
    .action(async (opts: { config?: string }) => {
      const result = await checkConfig(opts.config ?? defaultConfigFile(), process.env, process.cwd());
      (result.ok ? process.stdout : process.stderr).write(result.text);
      process.exitCode = result.ok ? 0 : EXIT_CONFIG;
    });
}

/** `marketsOf`: the venue's market list (default: paper.markets or the venue's public endpoint, venueMarkets). */
export async function checkConfig(
  file: string, env: NodeJS.ProcessEnv, baseDir: string, marketsOf: (c: FrozenConfig) => Promise<VenueMarkets> = venueMarkets,
): Promise<{ ok: boolean; text: string }> {
  let config: FrozenConfig;
  try {
    config = loadConfig(file, env);
  } catch (err) {
    return { ok: false, text: formatError(err) };
  }
  try {
    // Live mode signs with these: a blank key or one with a line break is a config error, not a 401 later.
    if (config.mode === 'live') loadCredentials(env, { required: true });
  } catch (err) {
    return { ok: false, text: formatError(err) };
  }
  let loaded: Awaited<ReturnType<typeof describeConfiguredStrategies>>;
  try {
    // As the daemon loads them: each module in its own throwaway guest, none of its code in this process.
    loaded = await describeConfiguredStrategies(config, baseDir);
  } catch (err) {
    return { ok: false, text: formatError(err) };
  }
  if (loaded.errors.length > 0) {
    return { ok: false, text: `${file}: strategies:\n${loaded.errors.map((e) => `  ${e.code} ${withFile(e)}`).join('\n')}\n` };
  }
  let console: string;
  try {
    console = `${consoleLine(config)}\n${notificationsLine(config, baseDir)}`;
  } catch (err) {
    return { ok: false, text: formatError(err) };
  }
  // Every enabled market against what the venue offers: the daemon refuses these at start-up (exit 78).
  const venue = await marketsOf(config);
  const marketLines: string[] = [];
  if (venue.kind === 'unreachable') {
    marketLines.push(`  WARNING markets: not checked: could not reach ${venue.source} (${venue.reason})`);
  } else {
    const check = checkStrategyMarkets(loaded.strategies, venue.markets);
    if (check.unlisted.length > 0) {
      return { ok: false, text: `${file}: markets:\n${unlistedLines(check, venue.source, venue.markets.map((m) => m.name)).map((l) => `  ${l}`).join('\n')}\n` };
    }
    for (const n of check.notTrading) marketLines.push(`  WARNING markets: strategy ${n.strategy}: ${n.markets.join(', ')} listed by ${venue.source} with trading disabled (its intents are denied until it trades)`);
    const used = [...new Set(loaded.strategies.flatMap((s) => s.markets))];
    marketLines.unshift(`  markets: ${used.join(', ')} offered by ${venue.source}`);
  }
  return { ok: true, text: summary(file, config, loaded.strategies, [...marketLines, console]) };
}

function summary(file: string, c: FrozenConfig, strategies: Awaited<ReturnType<typeof describeConfiguredStrategies>>['strategies'], marketLines: readonly string[]): string {
  const lines = [`OK ${file}`, `  mode: ${c.mode}`];
  if (c.mode === 'paper' && c.paper) {
    lines.push(c.paper.exchangeUrl !== undefined
      ? `  paper: running simulated exchange ${c.paper.exchangeUrl} (its own markets, balances and clock)`
      : `  paper: speed ${c.paper.speed}, markets ${(c.paper.markets ?? []).map((m) => `${m.market} (${m.data})`).join(', ')}`);
  } else {
    lines.push(`  exchange: ${c.exchange.baseUrl}${c.exchange.euBaseUrl ? ` (+ ${c.exchange.euBaseUrl})` : ''}, primary ${c.exchange.primaryRegion}`);
  }
  // The URL may hold a password: only say whether Redis is configured.
  lines.push(`  redis: ${!usesRedis(c) ? 'not configured (in-process state, not durable)' : c.redis.sentinels !== undefined ? `through sentinels (master ${c.redis.sentinelName})` : c.redis.clusterNodes !== undefined ? 'a cluster' : 'configured'}, key prefix ${c.redis.keyPrefix}`);
  // Already resolved (and checked against the minimum) when the strategies were described; the default minimum as src/app/guest-isolation.ts.
  lines.push(`  strategy guests: ${guestIsolationOf(c)} (minimum ${guestIsolationMinimum(c)})`);
  for (const s of strategies) {
    lines.push(`  strategy ${s.name} (version ${s.identity.version}): ${s.markets.join(', ')} ${s.interval}, warm-up ${s.warmup}, params ${JSON.stringify(s.params)?.slice(0, 500)}`);
  }
  lines.push(...marketLines);
  const d = c.risk.defaults;
  const notional = [d.maxNotionalPerOrder && `per order ${d.maxNotionalPerOrder}`, d.maxNotionalPerMarket && `per market ${d.maxNotionalPerMarket}`].filter(Boolean).join(', ');
  lines.push(`  risk: initial state ${c.risk.initialState}${notional ? `, max notional ${notional}` : ''}${c.risk.dailyLossLimit ? `, daily loss limit ${c.risk.dailyLossLimit}` : ''}`);
  lines.push(`  kill-switch: ${c.killSwitch.enabled ? `on, ${c.killSwitch.timeoutSeconds} s timeout, refreshed every ${c.killSwitch.refreshSeconds} s` : 'off'}`);
  lines.push(`  metrics: ${c.metrics.enabled ? `${c.metrics.host}:${c.metrics.port}` : 'off'}`);
  return `${lines.join('\n')}\n`;
}

/** The console as the daemon would open it (token files read, the TLS rule applied): who may come in. */
function consoleLine(c: FrozenConfig): string {
  if (!c.console.enabled) return '  console: off';
  const { tokens, oneTime } = consoleAccess(c);
  const roles = c.console.tokens.map((t) => `${t.name} (${t.role})`).join(', ');
  return `  console: ${c.console.host}:${c.console.port}${c.console.behindTlsProxy ? ' behind a TLS proxy' : ''}, ${oneTime !== undefined ? 'a one-time operator token at start' : `${tokens.size} token(s): ${roles}`}`;
}

/** The notification channels as the daemon opens them (secret files read and checked), by name and kind only. */
function notificationsLine(c: FrozenConfig, baseDir: string): string {
  if (!c.notifications.enabled) return '  notifications: off';
  const channels = loadNotificationChannels(c.notifications, baseDir);
  for (const ch of channels) ch.close();
  return `  notifications: ${c.notifications.channels.map((ch) => `${ch.name} (${ch.type === 'telegram' ? 'telegram' : `webhook, ${ch.template}`})`).join(', ')}`;
}

/** The error message, prefixed with the module file when the message does not name it already. */
function withFile(e: { message: string; context: Readonly<Record<string, unknown>> }): string {
  const file = typeof e.context['file'] === 'string' ? e.context['file'] : '';
  return file === '' || e.message.includes(file) ? e.message : `${file}: ${e.message}`;
}
