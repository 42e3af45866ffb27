import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createGzip, gzipSync } from 'node:zlib';
import type Redis from 'ioredis';
import { dataKey, fetchData, MAX_DATA_BYTES, uploadData } from '../../../src/backtest/queue/data-blobs';
import type { DataRef } from '../../../src/backtest/queue/queue-jobs';
import { RedisTestContext } from '../store/redis-test-context';

/**
 * The worker's side of sweep data over a real Redis: a blob is gunzipped to at most its declared
 * size, so a gzip bomb (200 MB of zeros in ~200 KB) declared as 1 KB is refused at once without the
 * worker ever holding the 200 MB; absurd declared sizes are refused before anything is fetched; a
 * normal file still arrives intact.
 */
const ctx = new RedisTestContext();
let redis: Redis;
let prefix: string;
let dir: string;

beforeEach(async () => {
  redis = await ctx.client();
  prefix = ctx.prefix();
  dir = await mkdtemp(path.join(tmpdir(), 'tb-blobs-'));
});

afterEach(async () => {
  await ctx.cleanup();
  await rm(dir, { recursive: true, force: true });
});

const BOMB_MB = 200;

/** 200 MB of zeros gzipped, made 1 MB at a time (the test never holds the 200 MB either), and their hash. */
async function gzipBomb(): Promise<{ blob: Buffer; sha256: string }> {
  const zero = Buffer.alloc(1024 * 1024);
  const hash = createHash('sha256');
  const gz = createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gz.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise<void>((resolve, reject) => { gz.on('end', resolve); gz.on('error', reject); });
  for (let i = 0; i < BOMB_MB; i++) {
    hash.update(zero);
    if (!gz.write(zero)) await new Promise((resolve) => gz.once('drain', resolve));
  }
  gz.end();
  await done;
  return { blob: Buffer.concat(parts), sha256: hash.digest('hex') };
}

/** Peak resident memory of this process so far, in MB (monotone: a spike while refusing would show). */
const peakRssMb = (): number => process.resourceUsage().maxRSS / 1024;

test('a normal file goes through: uploaded with its size, fetched, hash-checked, cached', async () => {
  const file = path.join(dir, 'btc.csv');
  const text = 'time,open,high,low,close,volume\n' + Array.from({ length: 2000 }, (_, i) => `${1632808740 + 60 * i},1,2,0.5,1.5,${i}`).join('\n') + '\n';
  await writeFile(file, text);
  const refs = await uploadData(redis, prefix, [{ market: 'BTC_USDT', file }]);
  expect(refs).toEqual([{ market: 'BTC_USDT', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), ext: '.csv', bytes: Buffer.byteLength(text) }]);
  const [got] = await fetchData(redis, prefix, path.join(dir, 'cache'), refs, new Map());
  expect(await readFile(got!.file, 'utf8')).toBe(text);
});

test('a gzip bomb declared as 1 KB is refused quickly, naming the blob, and memory stays bounded', async () => {
  const { blob, sha256 } = await gzipBomb();
  expect(blob.length).toBeLessThan(1024 * 1024); // ~200 KB of gzip for 200 MB of zeros
  await redis.set(dataKey(prefix, sha256), blob);
  const ref: DataRef = { market: 'BTC_USDT', sha256, ext: '.csv', bytes: 1024 };
  const peakBefore = peakRssMb();
  const started = Date.now();
  // Declared 1 KB, the copy is ~200 KB of gzip: refused by its stored size before it is even read.
  await expect(fetchData(redis, prefix, path.join(dir, 'cache'), [ref], new Map()))
    .rejects.toThrow(`data for BTC_USDT (sha256 ${sha256.slice(0, 12)}…): the queue's copy is ${blob.length} bytes, more than gzip of the declared 1024 bytes can be; refusing it`);
  // Declared large enough for the gzip copy to pass the stored-size check (1 MB), still far below
  // what it unpacks to: zlib stops at the declared size.
  const declared = 1024 * 1024;
  await expect(fetchData(redis, prefix, path.join(dir, 'cache'), [{ ...ref, bytes: declared }], new Map()))
    .rejects.toThrow(`data for BTC_USDT (sha256 ${sha256.slice(0, 12)}…): the queue's copy unpacks to more than the declared ${declared} bytes; refusing it`);
  expect(Date.now() - started).toBeLessThan(2000);
  // Unbounded, gunzip would have held 200 MB at once.
  expect(peakRssMb() - peakBefore).toBeLessThan(50);
});

test('declared sizes that are not a byte count within the cap are refused before anything is fetched', async () => {
  const sha256 = 'a'.repeat(64);
  await redis.set(dataKey(prefix, sha256), gzipSync(Buffer.from('x')));
  for (const bytes of [MAX_DATA_BYTES + 1, 10 * 1024 ** 3, -1, 1.5, Number.NaN]) {
    await expect(fetchData(redis, prefix, path.join(dir, 'cache'), [{ market: 'ETH_USDT', sha256, ext: '.csv', bytes }], new Map()))
      .rejects.toThrow(new RegExp(`^data for ETH_USDT \\(sha256 a{12}…\\): declared size .+ is not a byte count of at most ${MAX_DATA_BYTES}; refusing it$`));
  }
  // A reference without any size (a chunk from a submitter that did not declare one) is refused too.
  const bare = { market: 'ETH_USDT', sha256, ext: '.csv' } as unknown as DataRef;
  await expect(fetchData(redis, prefix, path.join(dir, 'cache'), [bare], new Map())).rejects.toThrow(/declared size undefined is not a byte count/);
});

test('a copy that is random bytes, not gzip, is refused as such', async () => {
  const sha256 = 'b'.repeat(64);
  await redis.set(dataKey(prefix, sha256), randomBytes(500));
  await expect(fetchData(redis, prefix, path.join(dir, 'cache'), [{ market: 'BTC_USDT', sha256, ext: '.csv', bytes: 1024 }], new Map()))
    .rejects.toThrow(`data for BTC_USDT (sha256 bbbbbbbbbbbb…): the queue's copy is not gzip data; refusing it`);
});
