import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectBatch, rankedOfSweepJson } from '../../../src/backtest/queue/collect-batch';
import { bullConnection, queueConfigFromEnv, safeMessage } from '../../../src/backtest/queue/queue-config';
import { canonicalJson } from '../../../src/core/canonical-json';
import { batchId, chunkJobId, chunkOfKey, chunksOf, type BatchContent, type CollectData } from '../../../src/backtest/queue/queue-jobs';
import { checkStrategySources } from '../../../src/backtest/queue/strategy-sources';
import { rankResults } from '../../../src/backtest/sweep/run-sweep';
import type { SweepRunResult, SweepSetup } from '../../../src/backtest/sweep/sweep-types';
import { renderSweep } from '../../../src/backtest/sweep/write-sweep';

const setup: SweepSetup = { strategy: 'sma-cross', strategiesDir: '/s', data: [{ market: 'BTC_USDT', file: 'btc.csv' }], balances: { USDT: '10000' }, baseParams: {} };
const jobs = [0, 1, 2, 3, 4].map((index) => ({ index, params: { fast: index + 1 } }));
const run = (index: number, pnl: number): SweepRunResult => ({ index, params: { fast: index + 1 }, metrics: { netPnl: String(pnl) }, orders: { placed: 1, denied: 0, rejected: 0 }, fills: 1, strategy: { errors: 0, overruns: 0, pauses: 0, failed: false } });
const key = (chunk: number): string => `tradebot-queue:sweeps:${chunkJobId('abc', chunk)}`;
const data = (render?: CollectData['render']): CollectData => ({ kind: 'collect', batch: 'abc', chunkSize: 2, attempts: 3, jobs, setup, render });

test('the parent puts chunk results back in batch order, whatever order they finished in', () => {
  const values = { [key(2)]: [run(4, 5)], [key(0)]: [run(0, 1), run(1, 2)], [key(1)]: [run(2, 3), run(3, 4)] };
  const out = collectBatch(data(), values, {});
  expect(out.kind).toBe('runs');
  expect(out.kind === 'runs' && out.results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
  expect(out.failedChunks).toEqual([]);
});

test('a chunk that failed for good becomes one error row per run it held, and is named', () => {
  const values = { [key(0)]: [run(0, 1), run(1, 2)], [key(2)]: [run(4, 5)] };
  const out = collectBatch(data(), values, { [key(1)]: 'worker ran out of memory' });
  expect(out.failedChunks).toEqual([{ chunk: 1, runs: 2, reason: 'worker ran out of memory' }]);
  const rows = out.kind === 'runs' ? out.results : [];
  expect(rows.map((r) => r.error)).toEqual([undefined, undefined, 'chunk 1 failed (tried up to 3 times): worker ran out of memory', 'chunk 1 failed (tried up to 3 times): worker ran out of memory', undefined]);
  expect(rows[2]?.params).toEqual({ fast: 3 });
});

test('a sweep parent ranks and renders with the local sweep\'s own functions: the same text as the local writer', () => {
  const results = [run(0, 1), run(1, 2), run(2, 3), run(3, 4), run(4, 5)];
  const values = { [key(0)]: results.slice(0, 2), [key(1)]: results.slice(2, 4), [key(2)]: results.slice(4) };
  const out = collectBatch(data({ grid: { fast: [1, 2, 3, 4, 5] }, rankBy: 'netPnl' }), values, {});
  const local = renderSweep({ setup, grid: { fast: [1, 2, 3, 4, 5] }, rankBy: 'netPnl', ranked: rankResults(results, 'netPnl') });
  expect(out.kind === 'sweep' && { json: out.json, csv: out.csv }).toEqual(local);
  expect(out.kind === 'sweep' && rankedOfSweepJson(out.json)).toEqual(rankResults(results, 'netPnl'));
});

test('batch IDs hash content, not paths or key order; chunk keys round-trip', () => {
  const content: BatchContent = { setup, data: [{ market: 'BTC_USDT', sha256: 'a'.repeat(64), ext: '.csv', bytes: 100 }], strategy: [{ path: 'sma-cross.ts', sha256: 'b'.repeat(64) }], version: '0.1.0' };
  const id = batchId(content, jobs, 2, undefined);
  expect(id).toMatch(/^[0-9a-f]{24}$/);
  expect(batchId({ ...content }, jobs.map((j) => ({ params: j.params, index: j.index })), 2, undefined)).toBe(id);
  expect(batchId(content, jobs, 3, undefined)).not.toBe(id);
  expect(batchId({ ...content, data: [{ market: 'BTC_USDT', sha256: 'c'.repeat(64), ext: '.csv', bytes: 100 }] }, jobs, 2, undefined)).not.toBe(id);
  expect(chunkOfKey(key(12))).toBe(12);
  expect(chunkJobId('abc', 3)).not.toContain(':');
  expect(chunksOf([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
});

test('queue config: the URL is required, checked, and its password never shown', () => {
  expect(() => queueConfigFromEnv({})).toThrow(/set TRADEBOT_QUEUE_REDIS_URL/);
  expect(() => queueConfigFromEnv({ TRADEBOT_QUEUE_REDIS_URL: 'http://x' })).toThrow(/expected redis:\/\//);
  expect(() => queueConfigFromEnv({ TRADEBOT_QUEUE_REDIS_URL: 'not a url hunter2' })).toThrow(/^TRADEBOT_QUEUE_REDIS_URL is not a URL \(expected/);
  expect(() => queueConfigFromEnv({ TRADEBOT_QUEUE_REDIS_URL: 'redis://h:1', TRADEBOT_QUEUE_PREFIX: 'a:b' })).toThrow(/TRADEBOT_QUEUE_PREFIX/);
  const c = queueConfigFromEnv({ TRADEBOT_QUEUE_REDIS_URL: 'redis://u:hunter2@queue:6379/2' });
  expect(c.where).toBe('redis://queue:6379/2');
  expect(c.prefix).toBe('tradebot-queue');
  expect(JSON.stringify(c)).not.toContain('hunter2');
  expect(safeMessage(new Error('cannot reach redis://u:hunter2@queue:6379/2'), c)).toBe('cannot reach redis://queue:6379/2');
  // From a file, as the daemon's TRADEBOT_REDIS_URL_FILE (pm2 keeps environment variables in its process list).
  const dir = mkdtempSync(join(tmpdir(), 'tb-qurl-'));
  writeFileSync(join(dir, 'url'), 'redis://:hunter2@queue:6380/1\n', { mode: 0o600 });
  expect(queueConfigFromEnv({ TRADEBOT_QUEUE_REDIS_URL_FILE: join(dir, 'url') }).where).toBe('redis://queue:6380/1');
  expect(() => queueConfigFromEnv({ TRADEBOT_QUEUE_REDIS_URL_FILE: join(dir, 'url'), TRADEBOT_QUEUE_REDIS_URL: 'redis://h:1' })).toThrow(/either TRADEBOT_QUEUE_REDIS_URL or TRADEBOT_QUEUE_REDIS_URL_FILE/);
  expect(() => queueConfigFromEnv({ TRADEBOT_QUEUE_REDIS_URL_FILE: join(dir, 'missing') })).toThrow(/cannot be read: ENOENT/);
});

test('queue config through sentinels: the daemon\'s form under TRADEBOT_QUEUE_REDIS_*, checked, passwords never shown', () => {
  const env = {
    TRADEBOT_QUEUE_REDIS_SENTINELS: 's0:26379, s1:26379', TRADEBOT_QUEUE_REDIS_SENTINEL_NAME: 'queue',
    TRADEBOT_QUEUE_REDIS_PASSWORD: 'hunter2', TRADEBOT_QUEUE_REDIS_SENTINEL_PASSWORD: 'sentinel-pw',
  };
  const c = queueConfigFromEnv(env);
  expect(c.where).toBe('sentinel queue at s0:26379,s1:26379');
  expect(JSON.stringify(c)).not.toMatch(/hunter2|sentinel-pw/);
  expect(bullConnection(c)).toMatchObject({ sentinels: [{ host: 's0', port: 26379 }, { host: 's1', port: 26379 }], name: 'queue', password: 'hunter2', sentinelPassword: 'sentinel-pw', maxRetriesPerRequest: null });
  expect(safeMessage(new Error('NOAUTH hunter2 / sentinel-pw'), c)).toBe('NOAUTH *** / ***');
  expect(() => queueConfigFromEnv({ TRADEBOT_QUEUE_REDIS_SENTINELS: 's0:26379' })).toThrow(/TRADEBOT_QUEUE_REDIS_SENTINEL_NAME: the master group/);
  expect(() => queueConfigFromEnv({ TRADEBOT_QUEUE_REDIS_SENTINEL_NAME: 'q' })).toThrow(/set without TRADEBOT_QUEUE_REDIS_SENTINELS/);
  expect(() => queueConfigFromEnv({ ...env, TRADEBOT_QUEUE_REDIS_URL: 'redis://h:1' })).toThrow(/are set: say where the queue Redis is one way/);
  expect(() => queueConfigFromEnv({ ...env, TRADEBOT_QUEUE_REDIS_SENTINELS: 's0' })).toThrow(/expected host:port, got "s0"/);
  expect(() => queueConfigFromEnv({ ...env, TRADEBOT_QUEUE_REDIS_TLS: 'yes' })).toThrow(/TRADEBOT_QUEUE_REDIS_TLS: true or false/);
  // A misspelt variable is refused, not ignored (the password would silently be missing).
  expect(() => queueConfigFromEnv({ ...env, TRADEBOT_QUEUE_REDIS_SENTINEL_PASWORD: 'x' })).toThrow(/unknown variable TRADEBOT_QUEUE_REDIS_SENTINEL_PASWORD: the queue reads/);
});

test('a worker\'s strategy files must match the submitter\'s', () => {
  const mine = [{ path: 'sma-cross.ts', sha256: 'a' }, { path: '_sizing.ts', sha256: 'b' }];
  expect(() => checkStrategySources('sma-cross', mine, mine)).not.toThrow();
  expect(() => checkStrategySources('sma-cross', mine, [mine[0]!, { path: '_sizing.ts', sha256: 'x' }])).toThrow(/at _sizing\.ts \(content differs\)/);
  expect(() => checkStrategySources('sma-cross', mine, [mine[0]!])).toThrow(/at _sizing\.ts \(missing or extra here\)/);
});
