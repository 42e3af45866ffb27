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

/**
 * Writes `sweep.json` (the setup, grid, ranking metric and every run, best first, with all its
 * metrics) and `sweep.csv` (the printed table) into `dir`, created if missing.
 */
export async function writeSweep(dir: string, out: SweepOutput): Promise<{ jsonPath: string; csvPath: string }> {
  await mkdir(dir, { recursive: true });
  const jsonPath = join(dir, 'sweep.json');
  const csvPath = join(dir, 'sweep.csv');
  const json = { formatVersion: 1, setup: out.setup, grid: out.grid, rankBy: out.rankBy, results: out.ranked.map((r, i) => ({ rank: i + 1, ...r })) };
  await writeFile(jsonPath, `${JSON.stringify(json, null, 2)}\n`, 'utf8');
  const { header, rows } = sweepRows(out.ranked, out.rankBy);
  await writeFile(csvPath, `${[header, ...rows].map((r) => r.map(csvCell).join(',')).join('\n')}\n`, 'utf8');
  return { jsonPath, csvPath };
}

function csvCell(text: string): string {
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
