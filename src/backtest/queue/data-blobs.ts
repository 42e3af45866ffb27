import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type Redis from 'ioredis';
import { SweepQueueError } from '../../domain/errors';
import type { DataRef } from './queue-jobs';

/**
 * Candle files reach workers through the queue's Redis, by content hash: the submitter stores each
 * file gzipped under `<prefix>:data:<sha256>`; a worker fetches it once, checks that the bytes hash
 * to what the chunk names, and keeps a copy in its cache folder. Nothing else to mount or sync,
 * and a worker never runs on data other than what was submitted. The key expires DATA_TTL_SECONDS
 * after the last submit that used it (the queue Redis runs `noeviction`, so nothing else frees it).
 */
export const DATA_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Largest data file a sweep may carry (512 MiB, about 15 years of 1-minute candles of one market).
 * A chunk declaring more is refused before anything is fetched: the worker would hold it in memory.
 */
export const MAX_DATA_BYTES = 512 * 1024 * 1024;

/**
 * Most a gzip copy of `bytes` bytes may take in Redis: incompressible data grows by a few bytes per
 * 64 KiB block plus a header, far below 1 % + 1 KiB. A larger blob is not the declared file.
 */
function maxBlobBytes(bytes: number): number {
  return bytes + Math.ceil(bytes / 100) + 1024;
}

export function dataKey(prefix: string, sha256: string): string {
  return `${prefix}:data:${sha256}`;
}

export function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Hashes each file and stores the ones the queue Redis lacks; returns the references chunks carry. */
export async function uploadData(redis: Redis, prefix: string, files: readonly { readonly market: string; readonly file: string }[]): Promise<DataRef[]> {
  const refs: DataRef[] = [];
  for (const f of files) {
    const bytes = await readFile(f.file);
    if (bytes.length > MAX_DATA_BYTES) {
      throw new SweepQueueError(`data for ${f.market}: ${f.file} is ${bytes.length} bytes, more than the ${MAX_DATA_BYTES} a sweep may carry`, { market: f.market, bytes: bytes.length });
    }
    const sha256 = sha256Of(bytes);
    const key = dataKey(prefix, sha256);
    // Present already (an earlier submit): only its expiry moves.
    const stored = await redis.set(key, gzipSync(bytes), 'EX', DATA_TTL_SECONDS, 'NX');
    if (stored === null) await redis.expire(key, DATA_TTL_SECONDS);
    refs.push({ market: f.market, sha256, ext: path.extname(f.file) || '.csv', bytes: bytes.length });
  }
  return refs;
}

/**
 * The worker's side: the local path of each referenced file, fetched into `cacheDir` when missing.
 * Refuses (SweepQueueError) data whose bytes hash differently from the reference, whether the
 * queue's copy or the cached one; `verified` holds this process's checks, done or under way.
 */
export async function fetchData(redis: Redis, prefix: string, cacheDir: string, refs: readonly DataRef[], verified: Map<string, Promise<void>>): Promise<{ market: string; file: string }[]> {
  const out: { market: string; file: string }[] = [];
  for (const ref of refs) {
    if (!/^[0-9a-f]{64}$/.test(ref.sha256) || !/^\.[A-Za-z0-9]{1,8}$/.test(ref.ext)) {
      throw new SweepQueueError(`data for ${ref.market}: malformed reference (sha256 "${short(ref.sha256)}", extension "${ref.ext.slice(0, 12)}")`, { market: ref.market });
    }
    // Checked before any byte is fetched: the declared size bounds what the worker will hold.
    if (!Number.isSafeInteger(ref.bytes) || ref.bytes < 0 || ref.bytes > MAX_DATA_BYTES) {
      throw new SweepQueueError(`data for ${ref.market} (sha256 ${short(ref.sha256)}): declared size ${String(ref.bytes).slice(0, 24)} is not a byte count of at most ${MAX_DATA_BYTES}; refusing it`, { market: ref.market, sha256: ref.sha256 });
    }
    // Fanned out by the first two digits, as git stores objects.
    const file = path.join(cacheDir, ref.sha256.slice(0, 2), `${ref.sha256.slice(2)}${ref.ext}`);
    // One check (and download) per file, shared by the chunks that need it at the same time.
    let ready = verified.get(file);
    if (ready === undefined) {
      ready = ensureCached(redis, prefix, ref, file);
      verified.set(file, ready);
      ready.catch(() => verified.delete(file)); // a failed fetch is tried again by the next chunk
    }
    await ready;
    out.push({ market: ref.market, file });
  }
  return out;
}

async function ensureCached(redis: Redis, prefix: string, ref: DataRef, file: string): Promise<void> {
  const cached = await readFile(file).catch(() => undefined);
  if (cached !== undefined && sha256Of(cached) === ref.sha256) return;
  await mkdir(path.dirname(file), { recursive: true });
  await download(redis, prefix, ref, file);
}

async function download(redis: Redis, prefix: string, ref: DataRef, file: string): Promise<void> {
  const key = dataKey(prefix, ref.sha256);
  const what = `data for ${ref.market} (sha256 ${short(ref.sha256)})`;
  // The stored size first: a blob far larger than its file could ever gzip to is not read at all.
  const stored = await redis.strlen(key);
  if (stored > maxBlobBytes(ref.bytes)) {
    throw new SweepQueueError(`${what}: the queue's copy is ${stored} bytes, more than gzip of the declared ${ref.bytes} bytes can be; refusing it`, { market: ref.market, sha256: ref.sha256 });
  }
  const blob = await redis.getBuffer(key);
  if (blob === null) {
    throw new SweepQueueError(`${what} is not in the queue Redis (expired or removed): submit the sweep again`, { market: ref.market, sha256: ref.sha256 });
  }
  const bytes = gunzipBounded(blob, ref, what);
  const got = sha256Of(bytes);
  if (got !== ref.sha256) {
    throw new SweepQueueError(`data for ${ref.market}: content hash ${short(got)} differs from the sweep's ${short(ref.sha256)}; refusing it`, { market: ref.market, sha256: ref.sha256, got });
  }
  // Written whole then renamed: a worker killed mid-write leaves no half file under the final name.
  const tmp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, file);
}

/**
 * Gunzips at most the declared size (zlib stops there: a gzip bomb costs the worker no more memory
 * than the file it claims to be) and refuses a copy that unpacks to more. Less is left to the hash
 * check, which refuses any content other than the sweep's.
 */
function gunzipBounded(blob: Buffer, ref: DataRef, what: string): Buffer {
  let bytes: Buffer;
  try {
    // maxOutputLength must be at least 1 (an empty file's copy unpacks to nothing anyway).
    bytes = gunzipSync(blob, { maxOutputLength: Math.max(1, ref.bytes) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new SweepQueueError(`${what}: the queue's copy unpacks to more than the declared ${ref.bytes} bytes; refusing it`, { market: ref.market, sha256: ref.sha256 });
    }
    throw new SweepQueueError(`${what}: the queue's copy is not gzip data; refusing it`, { market: ref.market, sha256: ref.sha256 });
  }
  return bytes;
}

/** A hash as messages show it: its first 12 digits (a full 64-digit run reads like a secret to log scanners). */
function short(sha256: string): string {
  return `${sha256.slice(0, 12)}…`;
}
