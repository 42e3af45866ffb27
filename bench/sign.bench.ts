import { createHmac } from 'node:crypto';
import type { Clock } from '../src/core/clock';
import { HttpExchangeClient } from '../src/exchange/http/client';
import { buildSignedBody } from '../src/exchange/http/sign';
import { InMemoryNonceSource } from '../src/exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../src/limiter/in-memory-limiter';
import type { BenchRow } from './bench-types';

/**
 * Signed requests prepared per second, without network: what HttpExchangeClient does before it
 * sends a stop-limit order (checkRequest, nonce, JSON body, base64, HMAC-SHA512), beside the raw
 * HMAC-SHA512 of the same-sized payload. No goal: at a few µs per order it is far below what the
 * exchange's budget (1,000 private requests per second) lets anyone send, so it is watched, not tuned.
 */
const SECRET = 'b3f1c2d4e5a6978812345678abcdef0123456789abcdef0123456789abcdef01';
// Canonical names, as the client passes them; the runner writes them in the (default venue) dialect.
const PARAMS = {
  market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activationPrice: '41000',
  clientOrderId: 'tb-smacross-1a2b3c4d-s8x0-o', stp: 'no',
} as const;
const WIRE_PARAMS = {
  market: 'BTC_USDT', side: 'buy', amount: '0.001', price: '40000', activation_price: '41000',
  clientOrderId: 'tb-smacross-1a2b3c4d-s8x0-o', stp: 'no',
} as const;
// Many short rounds rather than a few long ones: on the shared box a round is often disturbed, and
// the median over many interleaved pairs (and the best of each) is what stays stable.
const ITERATIONS = 10_000;
const ROUNDS = 21;

async function timeRound(op: () => unknown | Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) await op();
  return ITERATIONS / (Number(process.hrtime.bigint() - start) / 1e9);
}

/**
 * Rounds of the floor and of the candidate alternate, so both see the same machine load (the box is
 * shared); the ratio is the median of the per-round ratios, the rates the best round of each.
 */
async function compare(floorOp: () => unknown, op: () => unknown | Promise<unknown>): Promise<{ floor: number; op: number; ratio: number }> {
  for (let i = 0; i < 2_000; i++) {
    floorOp();
    await op(); // warm-up (JIT)
  }
  const floors: number[] = [];
  const ops: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const f = await timeRound(floorOp);
    const o = await timeRound(op);
    floors.push(f);
    ops.push(o);
    ratios.push(f / o);
  }
  ratios.sort((a, b) => a - b);
  return { floor: Math.max(...floors), op: Math.max(...ops), ratio: ratios[Math.floor(ratios.length / 2)]! };
}

export async function run(): Promise<BenchRow[]> {
  // A clock that moves 1 ms per reading: the nonce source hands out `now` each time and never has to
  // throttle (a frozen clock would run the nonce 4 s ahead after 4,000 calls and make it wait).
  let t = 1_700_000_000_000;
  const clock: Clock = { nowMs: () => t++ };
  const client = new HttpExchangeClient({
    baseUrl: 'http://127.0.0.1:9', primaryRegion: 'global', credentials: { apiKey: 'bench-key', apiSecret: SECRET },
    nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs: 1000,
  });
  const runner = client.requestRunner;
  const payload = Buffer.from(buildSignedBody('/api/v4/order/stop_limit', 1_700_000_000_000, WIRE_PARAMS, true)).toString('base64');

  const hmac = () => createHmac('sha512', SECRET).update(payload).digest('hex');
  const { floor, op: prepared, ratio } = await compare(hmac, () => runner.prepare('stopLimit', runner.check('stopLimit', PARAMS)));
  const { op: checkOnly } = await compare(hmac, () => runner.check('stopLimit', PARAMS));
  let nonce = 1_700_000_000_000;
  const { op: bodyOnly } = await compare(hmac, () => buildSignedBody('/api/v4/order/stop_limit', nonce++, WIRE_PARAMS, true));
  return [
    { name: 'sign: raw HMAC-SHA512 of the payload (floor)', value: Math.round(floor), unit: 'ops/s' },
    { name: 'sign: prepared signed stop-limit request', value: Math.round(prepared), unit: 'ops/s', note: 'checkRequest + nonce + body + base64 + HMAC' },
    { name: 'sign: prepared signed stop-limit request, cost', value: Number((1e6 / prepared).toFixed(1)), unit: 'µs' },
    { name: 'sign: checkRequest alone', value: Math.round(checkOnly), unit: 'ops/s', note: 'the zod schema' },
    { name: 'sign: signed body alone', value: Math.round(bodyOnly), unit: 'ops/s', note: 'buildSignedBody, no base64/HMAC' },
    { name: 'sign: prepared cost / floor cost', value: Number(ratio.toFixed(2)), unit: 'x', note: 'median of interleaved rounds' },
    { name: 'sign: best prepared / best floor', value: Number((floor / prepared).toFixed(2)), unit: 'x', note: 'ratio of the best rounds' },
  ];
}
