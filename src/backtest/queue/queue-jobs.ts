import { createHash } from 'node:crypto';
import type { SweepJob, SweepRunResult, SweepSetup } from '../sweep/sweep-types';
import { canonicalJson } from '../../core/canonical-json';

/**
 * What goes on the queue. A batch (a sweep, or one phase of a walk-forward) is a BullMQ flow: one
 * parent `collect` job whose children are `chunk` jobs of a few parameter sets each. Only plain
 * JSON goes in (BullMQ stores job data as JSON).
 */

/** A data file as workers find it: by the SHA-256 of its bytes, not by the submitting machine's path. */
export interface DataRef {
  readonly market: string;
  readonly sha256: string;
  /** The file's extension (`.csv`), kept so the worker's copy parses the same way. */
  readonly ext: string;
  /** The file's size in bytes: the worker gunzips the queue's copy to at most this much (data-blobs.ts). */
  readonly bytes: number;
}

/** The strategy module and its local imports (path relative to the strategies folder, SHA-256). */
export type StrategySources = readonly { readonly path: string; readonly sha256: string }[];

/** The content a batch depends on: workers check theirs against it before running anything. */
export interface BatchContent {
  /** The submitter's setup (its file paths are only a record; workers use `data`). */
  readonly setup: SweepSetup;
  readonly data: readonly DataRef[];
  readonly strategy: StrategySources;
  /** tradebot's version: a worker of another version refuses the chunk (its results could differ). */
  readonly version: string;
}

export interface ChunkData {
  readonly kind: 'chunk';
  readonly batch: string;
  readonly chunk: number;
  readonly content: BatchContent;
  readonly jobs: readonly SweepJob[];
}

/** A sweep's parent also ranks the runs and renders sweep.json and sweep.csv. */
export interface RenderSpec {
  readonly grid: Readonly<Record<string, unknown>>;
  readonly rankBy: string;
}

export interface CollectData {
  readonly kind: 'collect';
  readonly batch: string;
  readonly chunkSize: number;
  readonly attempts: number;
  /** Every run of the batch, in order: a failed chunk's runs are reported as error rows from these. */
  readonly jobs: readonly SweepJob[];
  readonly setup: SweepSetup;
  readonly render?: RenderSpec | undefined;
}

export type QueueJobData = ChunkData | CollectData;

/** A failed chunk as the parent reports it (after every attempt). */
export interface FailedChunk {
  readonly chunk: number;
  readonly runs: number;
  readonly reason: string;
}

/** The parent's return value: the runs in batch order, or for a sweep the rendered files. */
export type CollectResult =
  | { readonly kind: 'runs'; readonly results: readonly SweepRunResult[]; readonly failedChunks: readonly FailedChunk[] }
  | { readonly kind: 'sweep'; readonly json: string; readonly csv: string; readonly failedChunks: readonly FailedChunk[] };

/**
 * The batch ID: a hash of everything that decides its results (content hashes, not paths; the runs;
 * the chunking; the ranking), so the same sweep submitted again maps to the same jobs and reuses
 * what is finished, and a changed input is a new batch.
 */
export function batchId(content: BatchContent, jobs: readonly SweepJob[], chunkSize: number, render: RenderSpec | undefined): string {
  const hash = createHash('sha256').update(canonicalJson({ format: 1, content, jobs, chunkSize, render: render ?? null })).digest('hex');
  return hash.slice(0, 24);
}

/** Job IDs (BullMQ forbids ":" and all-digit custom IDs). */
export function parentJobId(batch: string): string {
  return `sweep-${batch}`;
}

export function chunkJobId(batch: string, chunk: number): string {
  return `sweep-${batch}-c${String(chunk).padStart(5, '0')}`;
}

/** The chunk number of a child job key (`prefix:queue:sweep-<batch>-c00012`), or undefined. */
export function chunkOfKey(key: string): number | undefined {
  const m = /-c(\d+)$/.exec(key);
  return m === null ? undefined : Number(m[1]);
}

/** Splits the runs into chunks of `size` (the last may be smaller), in order. */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
