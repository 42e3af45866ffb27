import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderHtml } from './html-report';
import { renderJsonChunks } from './json-report';
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
  await writeChunks(jsonPath, renderJsonChunks(result));
  await writeFile(htmlPath, renderHtml(result), 'utf8');
  return { jsonPath, htmlPath };
}

/** Writes the pieces as they come, waiting when the stream is full. */
async function writeChunks(file: string, chunks: Iterable<string>): Promise<void> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  for (const chunk of chunks) {
    if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
  }
  out.end();
  await Promise.race([once(out, 'close'), failed]);
}
