import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderHtml } from './html-report';
import { renderJson } from './json-report';
import type { BacktestResult } from './types';

/** Where writeReport put the two files. */
export interface WrittenReport {
  readonly jsonPath: string;
  readonly htmlPath: string;
}

/**
 * Writes `report.json` and `report.html` into `dir` (created if missing; existing files are
 * replaced). File-system errors are passed through unchanged: they carry the path and errno.
 */
export async function writeReport(dir: string, result: BacktestResult): Promise<WrittenReport> {
  await mkdir(dir, { recursive: true });
  const jsonPath = join(dir, 'report.json');
  const htmlPath = join(dir, 'report.html');
  await writeFile(jsonPath, renderJson(result), 'utf8');
  await writeFile(htmlPath, renderHtml(result), 'utf8');
  return { jsonPath, htmlPath };
}
