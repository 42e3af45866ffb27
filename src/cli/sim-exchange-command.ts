import { Option, type Command } from 'commander';
import { readEnvOrFile, readSecretFile } from '../config/credentials';
import { ConfigError } from '../domain/errors';
import { MARKET_NAME } from '../domain/market';
import { parseFillModel } from '../domain/fill-model';
import { OCO_LEG_IDS, type OcoLegIds } from '../simulator/engine/sim-engine';
import { DEFAULT_DIALECT, DIALECT_NAMES, type DialectName } from '../exchange/wire/dialects';
import type { UnknownFieldPolicy } from '../exchange/wire/request-codec';
import { SIM_REGIONS, type SimRegion } from '../simulator/server/region';
import type { FaultSettings } from '../simulator/server/faults';
import {
  startSimulatedExchange, type SimMarketOptions, type SimulatedExchangeOptions, type SimWsOptions,
} from '../simulator/start-simulated-exchange';

type NumericFault = Exclude<keyof FaultSettings, 'endpoints'>;

interface SimExchangeOptions {
  port: string;
  host: string;
  apiKey?: string;
  /** Refused: kept as an option only to say why (see REFUSED_SECRET_FLAG). */
  apiSecret?: string;
  apiSecretFile?: string;
  market: string[];
  balance?: string;
  collateralBalance?: string;
  fillVolumeShare?: string;
  ocoCancelOn?: string;
  speed: string;
  start?: string;
  seed: string;
  rateLimits: boolean;
  latencyMs?: string;
  jitterMs?: string;
  errorRate?: string;
  rateLimitRate?: string;
  timeoutRate?: string;
  timeoutHoldMs?: string;
  lostAnswerRate?: string;
  dialect: string;
  unknownFields: string;
  ocoLegIds: string;
  region: string;
  wsIdleTimeoutMs?: string;
  wsTokenTtlMs?: string;
  wsSilent?: boolean;
  wsPushDelayMs?: string;
  wsDuplicatePushes?: boolean;
  wsDropEveryMs?: string;
}

/**
 * `tradebot sim-exchange`: the simulated exchange as a process. Prints exactly one line
 * `listening on http://127.0.0.1:<port>` when ready; stops cleanly (exit 0) on SIGTERM / SIGINT.
 * The WebSocket API is on the same port at `/ws` (ws://127.0.0.1:<port>/ws; not printed, to keep
 * the one line).
 * Its API secret never comes from the command line, which every local user can read (`ps`,
 * /proc/<pid>/cmdline, `pm2 jlist`): --api-secret-file F, TRADEBOT_SIM_API_SECRET or
 * TRADEBOT_SIM_API_SECRET_FILE. The API key alone signs nothing, so it may stay a flag.
 */
export function registerSimExchangeCommand(program: Command): void {
  program
    .command('sim-exchange')
    .description('run the simulated exchange (same HTTP API, signing and error answers) on loopback')
    .option('--port <port>', 'port, 0 = a random free port', '0')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--api-key <key>', 'API key accepted by the simulator (or TRADEBOT_SIM_API_KEY)')
    .option('--api-secret-file <file>', 'file holding its secret (or TRADEBOT_SIM_API_SECRET / TRADEBOT_SIM_API_SECRET_FILE); never the secret itself on the command line')
    .addOption(new Option('--api-secret <secret>').hideHelp())
    .option('--market <NAME[=path.csv]>', 'market to simulate, replaying a 1m candle CSV or a random walk; repeatable', collect, [])
    .option('--balance <list>', 'starting trading balances, e.g. USDT=10000,BTC=1')
    .option('--collateral-balance <list>', 'starting collateral balances (OCO margin), e.g. USDT=5000; default none')
    .option('--fill-volume-share <share>', "share of each candle's volume orders may fill, in (0, 1], or 'off' (default 0.1)")
    .option('--oco-cancel-on <when>', "when an OCO leg cancels the other: 'execution' (default, as live) or 'trigger'")
    .option('--speed <n>', 'market seconds per real second (0 = frozen clock)', '60')
    .option('--start <unixSeconds>', 'market clock start (default: first candle, or now)')
    .option('--seed <n>', 'seed of random walks and faults', '1')
    .option('--dialect <name>', `wire dialect spoken: ${DIALECT_NAMES.join(' or ')} (venue: the exchange's documented wire)`, DEFAULT_DIALECT)
    .option('--unknown-fields <policy>', 'a body field the dialect does not know: refuse (422 code 30) or ignore (as the live venue does)', 'refuse')
    .option('--oco-leg-ids <mode>', "client order id on OCO legs: empty (as the venue documents its answers) or echo (the id sent)", 'empty')
    .option('--region <region>', 'global, or eu: stop-limit, OCO and limit orders answered 453 as in the EU region', 'global')
    .option('--no-rate-limits', 'do not enforce the rate limits of limits.ts')
    .option('--latency-ms <ms>', 'fault: added latency per request')
    .option('--jitter-ms <ms>', 'fault: extra random latency up to this')
    .option('--error-rate <share>', 'fault: share of requests answered 5xx (0..1)')
    .option('--rate-limit-rate <share>', 'fault: share of requests answered 429')
    .option('--timeout-rate <share>', 'fault: share of requests held, then dropped')
    .option('--timeout-hold-ms <ms>', 'fault: how long a held request waits before it is dropped')
    .option('--lost-answer-rate <share>', 'fault: share of requests processed but never answered')
    .option('--ws-idle-timeout-ms <ms>', 'WebSocket (at /ws): close a connection after this long without a client message (default 60000, as documented)')
    .option('--ws-token-ttl-ms <ms>', 'WebSocket: lifetime of a profile/websocket_token token (default 300000)')
    .option('--ws-silent', 'WebSocket fault: keep connections open but send nothing (no answers, pongs or pushes)')
    .option('--ws-push-delay-ms <ms>', 'WebSocket fault: send every push this much later')
    .option('--ws-duplicate-pushes', 'WebSocket fault: send every push twice')
    .option('--ws-drop-every-ms <ms>', 'WebSocket fault: close every connection every this many ms')
    .action(async (opts: SimExchangeOptions) => {
      const sim = await startSimulatedExchange(parseSimOptions(opts, process.env));
      process.stdout.write(`listening on ${sim.url}\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          resolve();
        };
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      });
      await sim.close();
      process.exitCode = 0;
    });
}

export function parseSimOptions(opts: SimExchangeOptions, env: NodeJS.ProcessEnv): SimulatedExchangeOptions {
  const apiKey = opts.apiKey ?? env['TRADEBOT_SIM_API_KEY'];
  const apiSecret = simApiSecret(opts, env);
  if ((apiKey === undefined) !== (apiSecret === undefined)) {
    throw new ConfigError(
      apiKey === undefined
        ? 'the API secret is set but no API key: add --api-key K (or TRADEBOT_SIM_API_KEY)'
        : '--api-key needs its secret: --api-secret-file F, TRADEBOT_SIM_API_SECRET or TRADEBOT_SIM_API_SECRET_FILE',
      { path: apiKey === undefined ? 'apiKey' : 'apiSecret' },
    );
  }
  const markets: SimMarketOptions[] = (opts.market.length > 0 ? opts.market : ['BTC_USDT']).map((spec) => {
    const [name = '', csvPath] = spec.split('=', 2);
    if (!MARKET_NAME.test(name)) throw new ConfigError(`--market: "${name}" is not a market name like BTC_USDT`, { path: 'market' });
    return csvPath === undefined || csvPath === '' ? { name } : { name, csvPath };
  });
  const balances = balanceList(opts.balance, 'balance');
  const collateralBalances = balanceList(opts.collateralBalance, 'collateral-balance');
  const fill = parseFillModel({
    ...(opts.fillVolumeShare === undefined ? {} : { volumeShare: opts.fillVolumeShare }),
    ...(opts.ocoCancelOn === undefined ? {} : { ocoCancelOn: opts.ocoCancelOn }),
  });
  if (!fill.ok) {
    const flag = fill.field === 'volumeShare' ? 'fill-volume-share' : 'oco-cancel-on';
    throw new ConfigError(`--${flag} ${fill.reason}`, { path: flag });
  }
  const faults: { -readonly [K in NumericFault]?: number } = {};
  const setFault = (key: NumericFault, value: string | undefined, max: number): void => {
    if (value === undefined) return;
    faults[key] = number(value, key, max);
  };
  setFault('latencyMs', opts.latencyMs, 600_000);
  setFault('jitterMs', opts.jitterMs, 600_000);
  setFault('error5xxRate', opts.errorRate, 1);
  setFault('rateLimitRate', opts.rateLimitRate, 1);
  setFault('timeoutRate', opts.timeoutRate, 1);
  setFault('timeoutHoldMs', opts.timeoutHoldMs, 3_600_000);
  setFault('lostAnswerRate', opts.lostAnswerRate, 1);
  return {
    dialect: oneOf<DialectName>(opts.dialect, DIALECT_NAMES, 'dialect'),
    unknownFields: oneOf<UnknownFieldPolicy>(opts.unknownFields, ['refuse', 'ignore'], 'unknown-fields'),
    ocoLegIds: oneOf<OcoLegIds>(opts.ocoLegIds, OCO_LEG_IDS, 'oco-leg-ids'),
    region: oneOf<SimRegion>(opts.region, SIM_REGIONS, 'region'),
    port: number(opts.port, 'port', 65_535),
    host: opts.host,
    ...(apiKey !== undefined && apiSecret !== undefined ? { apiKey, apiSecret, balances, collateralBalances } : {}),
    fillModel: fill.model,
    markets,
    speed: number(opts.speed, 'speed', 1_000_000),
    ...(opts.start === undefined ? {} : { start: number(opts.start, 'start', 99_999_999_999) }),
    seed: number(opts.seed, 'seed', 2 ** 32),
    ...(opts.rateLimits ? {} : { rateLimits: false as const }),
    faults,
    ws: wsOptions(opts),
  };
}

const REFUSED_SECRET_FLAG =
  '--api-secret is refused: a secret on the command line can be read by every user of the machine (ps, /proc/<pid>/cmdline) ' +
  'and is kept by pm2 (pm2 jlist); give it as --api-secret-file F (a file of mode 600), TRADEBOT_SIM_API_SECRET_FILE or TRADEBOT_SIM_API_SECRET';

/** The simulator's API secret: from a file (flag or variable) or the environment, never from argv. */
function simApiSecret(opts: SimExchangeOptions, env: NodeJS.ProcessEnv): string | undefined {
  // The value is not echoed: it may be the real one, pasted where it does not belong.
  if (opts.apiSecret !== undefined) throw new ConfigError(REFUSED_SECRET_FLAG, { path: 'api-secret' });
  const fromEnv = readEnvOrFile(env, 'TRADEBOT_SIM_API_SECRET');
  if (opts.apiSecretFile === undefined) return fromEnv;
  if (fromEnv !== undefined) {
    throw new ConfigError('--api-secret-file: TRADEBOT_SIM_API_SECRET(_FILE) is set as well; give the secret one way', { path: 'api-secret-file' });
  }
  return readSecretFile(opts.apiSecretFile, '--api-secret-file');
}

function wsOptions(opts: SimExchangeOptions): SimWsOptions {
  const ms = (value: string | undefined, flag: string, min = 0): number | undefined => {
    if (value === undefined) return undefined;
    const n = number(value, flag, 86_400_000);
    if (n < min) throw new ConfigError(`--${flag}: "${value}" must be at least ${min}`, { path: flag });
    return n;
  };
  const idleTimeoutMs = ms(opts.wsIdleTimeoutMs, 'ws-idle-timeout-ms', 1);
  const tokenTtlMs = ms(opts.wsTokenTtlMs, 'ws-token-ttl-ms', 1);
  const pushDelayMs = ms(opts.wsPushDelayMs, 'ws-push-delay-ms');
  const dropEveryMs = ms(opts.wsDropEveryMs, 'ws-drop-every-ms');
  return {
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    ...(tokenTtlMs === undefined ? {} : { tokenTtlMs }),
    faults: {
      ...(opts.wsSilent === true ? { silent: true } : {}),
      ...(opts.wsDuplicatePushes === true ? { duplicatePushes: true } : {}),
      ...(pushDelayMs === undefined ? {} : { pushDelayMs }),
      ...(dropEveryMs === undefined ? {} : { dropEveryMs }),
    },
  };
}

/** `USDT=10000,BTC=1` -> { USDT: '10000', BTC: '1' }. */
function balanceList(list: string | undefined, flag: string): Record<string, string> {
  const balances: Record<string, string> = {};
  for (const part of (list ?? '').split(',').filter((p) => p !== '')) {
    const [ticker, amount] = part.split('=', 2);
    if (ticker === undefined || amount === undefined || !/^\d+(\.\d+)?$/.test(amount)) {
      throw new ConfigError(`--${flag}: "${part}" should look like USDT=10000`, { path: flag });
    }
    balances[ticker] = amount;
  }
  return balances;
}

function number(value: string, field: string, max: number): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > max) {
    throw new ConfigError(`--${field}: "${value}" is not a number between 0 and ${max}`, { path: field });
  }
  return n;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(`--${flag}: "${value}" is not one of ${allowed.join(', ')}`, { path: flag });
  }
  return value as T;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
