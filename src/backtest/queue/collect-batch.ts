import { rankResults } from '../sweep/run-sweep';
import type { SweepRunResult } from '../sweep/sweep-types';
import { renderSweep } from '../sweep/write-sweep';
import { chunkOfKey, chunksOf, type CollectData, type CollectResult, type FailedChunk } from './queue-jobs';

/**
 * The parent job's work once every chunk finished or failed for good: the runs back in batch order
 * (whatever order the chunks finished in); a chunk that failed after every attempt becomes one
 * error row per run it held, so nothing is dropped. A sweep is then ranked and rendered by the
 * local sweep's own functions, so its files are the local sweep's byte for byte.
 *
 * `values` and `failures` are what BullMQ reports for the children, keyed by child job key.
 */
export function collectBatch(data: CollectData, values: Readonly<Record<string, unknown>>, failures: Readonly<Record<string, string>>): CollectResult {
  const chunks = chunksOf(data.jobs, data.chunkSize);
  const byChunk = new Map<number, readonly SweepRunResult[]>();
  for (const [key, value] of Object.entries(values)) {
    const chunk = chunkOfKey(key);
    if (chunk !== undefined && Array.isArray(value)) byChunk.set(chunk, value as SweepRunResult[]);
  }
  const reasons = new Map<number, string>();
  for (const [key, reason] of Object.entries(failures)) {
    const chunk = chunkOfKey(key);
    if (chunk !== undefined) reasons.set(chunk, reason);
  }
  const failedChunks: FailedChunk[] = [];
  const results = chunks.flatMap((jobs, chunk): SweepRunResult[] => {
    const got = byChunk.get(chunk);
    if (got !== undefined && got.length === jobs.length) return [...got];
    const reason = reasons.get(chunk) ?? (got === undefined ? 'no result recorded' : `${got.length} results for ${jobs.length} runs`);
    failedChunks.push({ chunk, runs: jobs.length, reason });
    return jobs.map((j) => ({ index: j.index, params: j.params, error: `chunk ${chunk} failed (tried up to ${data.attempts} times): ${reason}` }));
  });
  if (data.render === undefined) return { kind: 'runs', results, failedChunks };
  const ranked = rankResults(results, data.render.rankBy);
  const files = renderSweep({ setup: data.setup, grid: data.render.grid, rankBy: data.render.rankBy, ranked });
  return { kind: 'sweep', json: files.json, csv: files.csv, failedChunks };
}

/** The ranked runs of a rendered sweep.json (each without its rank): what the table on stdout shows. */
export function rankedOfSweepJson(json: string): SweepRunResult[] {
  const parsed = JSON.parse(json) as { results: (SweepRunResult & { rank: number })[] };
  return parsed.results.map(({ rank: _rank, ...run }) => run);
}
