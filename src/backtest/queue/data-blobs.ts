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
    const sha256 = sha256Of(bytes);
    const key = dataKey(prefix, sha256);
    // Present already (an earlier submit): only its expiry moves.
    const stored = await redis.set(key, gzipSync(bytes), 'EX', DATA_TTL_SECONDS, 'NX');
    if (stored === null) await redis.expire(key, DATA_TTL_SECONDS);
    refs.push({ market: f.market, sha256, ext: path.extname(f.file) || '.csv' });
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
  const blob = await redis.getBuffer(dataKey(prefix, ref.sha256));
  if (blob === null) {
    throw new SweepQueueError(`data for ${ref.market} (sha256 ${short(ref.sha256)}) is not in the queue Redis (expired or removed): submit the sweep again`, { market: ref.market, sha256: ref.sha256 });
  }
  let bytes: Buffer;
  try {
    bytes = gunzipSync(blob);
  } catch {
    throw new SweepQueueError(`data for ${ref.market}: the queue's copy is not gzip data; refusing it`, { market: ref.market, sha256: ref.sha256 });
  }
  const got = sha256Of(bytes);
  if (got !== ref.sha256) {
    throw new SweepQueueError(`data for ${ref.market}: content hash ${short(got)} differs from the sweep's ${short(ref.sha256)}; refusing it`, { market: ref.market, sha256: ref.sha256, got });
  }
  // Written whole then renamed: a worker killed mid-write leaves no half file under the final name.
  const tmp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, file);
}

/** A hash as messages show it: its first 12 digits (a full 64-digit run reads like a secret to log scanners). */
function short(sha256: string): string {
  return `${sha256.slice(0, 12)}…`;
}
