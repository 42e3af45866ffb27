import type { Command } from 'commander';
import { ConfigError } from '../domain/errors';
import { DIALECTS, endpointAt } from '../exchange/wire/dialects';
import { badResponse, classifyAnswer, isErrorShape } from '../exchange/http/errors';
import { signRequest } from '../exchange/http/sign';
import { DEFAULT_MAX_RESPONSE_BYTES, KyTransport, NOT_JSON } from '../exchange/http/transport';
import { SystemClock } from '../core/clock';
import { syncClockOffset } from '../exchange/clock-offset';
import { timeResult } from '../exchange/wire/responses';
import { formatError } from './cli-basics';
import { createNonceSource } from './nonce-source-factory';
import { baseUrlProblem } from '../config/base-url';
import { loadCredentials } from '../config/credentials';

const clock = new SystemClock();

async function fetchServerTimeMs(transport: KyTransport, baseUrl: string): Promise<number> {
  const path = DIALECTS.venue.endpoints.time.path;
  const res = await transport.send({ endpoint: 'time', method: 'GET', url: baseUrl + path });
  const parsed = timeResult.safeParse(res.json === NOT_JSON ? undefined : res.json);
  if (res.status !== 200 || !parsed.success) throw badResponse('time', path, res.status, 'server time unreadable', res.text);
  return parsed.data;
}

export const DEFAULT_BASE_URL = 'https://whitebit.com';

interface ApiOptions {
  body?: string;
  query: string[];
  baseUrl?: string;
  timeout: string;
  nonceWindow: boolean;
}

/**
 * `tradebot api <METHOD> <PATH>`: one raw call for operators. POST is signed (credentials from
 * TRADEBOT_API_KEY / TRADEBOT_API_SECRET), GET is public. Prints the JSON answer on stdout; on error
 * prints the typed error (code, message, field errors) on stderr and exits 1. The secret, the
 * signature and the payload header are never printed.
 */
export function registerApiCommand(program: Command): void {
  program
    .command('api')
    .description('send one raw (signed for POST) request to the exchange and print the JSON answer')
    .argument('<method>', 'GET (public) or POST (private, signed)')
    .argument('<path>', 'endpoint path, e.g. /api/v4/trade-account/balance')
    .option('--body <json>', 'JSON object of body parameters (POST)')
    .option('--query <k=v>', 'query parameter (GET), repeatable', collect, [])
    .option('--base-url <url>', `server (default TRADEBOT_BASE_URL or ${DEFAULT_BASE_URL})`)
    .option('--timeout <ms>', 'request timeout in ms', '10000')
    .option('--no-nonce-window', 'send nonceWindow:false (strictly increasing nonce instead of the +-5 s window)')
    .action(async (method: string, path: string, opts: ApiOptions) => {
      try {
        const answer = await runApi(method, path, opts, process.env);
        process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      } catch (err) {
        process.stderr.write(formatError(err));
        process.exitCode = 1;
      }
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export async function runApi(methodArg: string, path: string, opts: ApiOptions, env: NodeJS.ProcessEnv): Promise<unknown> {
  const method = methodArg.toUpperCase();
  if (method !== 'GET' && method !== 'POST') throw new ConfigError(`method must be GET or POST, got ${methodArg}`, { path: 'method' });
  if (!path.startsWith('/')) throw new ConfigError(`path must start with "/", got ${path}`, { path: 'path' });
  const baseUrl = (opts.baseUrl ?? env['TRADEBOT_BASE_URL'] ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const problem = baseUrlProblem(baseUrl);
  if (problem !== undefined) throw new ConfigError(`--base-url ${problem}`, { path: 'baseUrl' });
  const timeoutMs = Number(opts.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new ConfigError('--timeout must be a positive integer', { path: 'timeout' });
  // Name the call after the endpoint table when the path is a known one (in either dialect).
  const endpoint = endpointAt(DIALECTS.venue, path) ?? endpointAt(DIALECTS.spec, path) ?? `${method} ${path}`;
  const transport = new KyTransport({ timeoutMs, maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES });

  let url = baseUrl + path;
  let headers: Record<string, string> | undefined;
  let body: string | undefined;
  if (method === 'GET') {
    const query = new URLSearchParams();
    for (const pair of opts.query) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new ConfigError(`--query expects k=v, got ${pair}`, { path: 'query' });
      query.append(pair.slice(0, eq), pair.slice(eq + 1));
    }
    if (query.size > 0) url += `?${query.toString()}`;
  } else {
    const params = parseBody(opts.body);
    const credentials = loadCredentials(env, { required: false });
    if (credentials === undefined) {
      throw new ConfigError('POST needs TRADEBOT_API_KEY and TRADEBOT_API_SECRET in the environment', { path: 'TRADEBOT_API_KEY' });
    }
    const apiKey = credentials.apiKey;
    const apiSecret = credentials.apiSecret.reveal();
    const nonces = await createNonceSource(env);
    let nonce: number;
    try {
      // The nonce window is +-5 s of the server's clock: follow it, as the daemon does.
      if (opts.nonceWindow) {
        const sync = await syncClockOffset({ fetchServerTime: () => fetchServerTimeMs(transport, baseUrl) }, clock, nonces.source, 1);
        if (sync.status === 'unreachable') process.stderr.write('warning: server time unreachable: the nonce uses the local clock\n');
        if (sync.status === 'too_far') {
          process.stderr.write(`warning: server clock ${Math.round(sync.offsetMs / 1000)} s off the local clock (limit ${sync.maxOffsetMs / 1000} s): not followed, the nonce uses the local clock\n`);
        }
      }
      nonce = await nonces.source.nextNonce(apiKey);
    } finally {
      await nonces.close();
    }
    const signed = signRequest({ apiKey, apiSecret }, path, nonce, params, opts.nonceWindow);
    headers = { ...signed.headers };
    body = signed.body;
  }
  const res = await transport.send({ endpoint, method, url, ...(headers ? { headers } : {}), ...(body === undefined ? {} : { body }) })
    .finally(() => transport.close());
  const json = res.json === NOT_JSON ? undefined : res.json;
  const answer = { endpoint, path, isPrivate: method === 'POST', status: res.status, body: json };
  if (res.status >= 400 || isErrorShape(answer)) throw classifyAnswer(answer);
  if (res.json === NOT_JSON) throw badResponse(endpoint, path, res.status, 'not JSON', res.text);
  return res.json;
}

function parseBody(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError('--body is not valid JSON', { path: 'body' });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError('--body must be a JSON object', { path: 'body' });
  }
  return parsed as Record<string, unknown>;
}

