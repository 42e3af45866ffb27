import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sweepRows } from './run-sweep';
import type { SweepRunResult, SweepSetup } from './sweep-types';

export interface SweepOutput {
  readonly setup: SweepSetup;
  readonly grid: Readonly<Record<string, unknown>>;
  readonly rankBy: string;
  /** Best first. */
  readonly ranked: readonly SweepRunResult[];
}

/** The text of `sweep.json` and `sweep.csv`: one renderer for the local sweep and the queue's parent job. */
export interface RenderedSweep {
  readonly json: string;
  readonly csv: string;
}

/**
 * `sweep.json` (the setup, grid, ranking metric and every run, best first, with all its metrics)
 * and `sweep.csv` (the printed table), as text.
 */
export function renderSweep(out: SweepOutput): RenderedSweep {
  const json = { formatVersion: 1, setup: out.setup, grid: out.grid, rankBy: out.rankBy, results: out.ranked.map((r, i) => ({ rank: i + 1, ...r })) };
  const { header, rows } = sweepRows(out.ranked, out.rankBy);
  return { json: `${JSON.stringify(json, null, 2)}\n`, csv: `${[header, ...rows].map((r) => r.map(csvCell).join(',')).join('\n')}\n` };
}

/** Writes `sweep.json` and `sweep.csv` (see renderSweep) into `dir`, created if missing. */
export async function writeSweep(dir: string, out: SweepOutput): Promise<{ jsonPath: string; csvPath: string }> {
  return writeRenderedSweep(dir, renderSweep(out));
}

/** Writes rendered sweep files into `dir` (created if missing). */
export async function writeRenderedSweep(dir: string, rendered: RenderedSweep): Promise<{ jsonPath: string; csvPath: string }> {
  await mkdir(dir, { recursive: true });
  const jsonPath = join(dir, 'sweep.json');
  const csvPath = join(dir, 'sweep.csv');
  await writeFile(jsonPath, rendered.json, 'utf8');
  await writeFile(csvPath, rendered.csv, 'utf8');
  return { jsonPath, csvPath };
}

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
