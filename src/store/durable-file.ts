import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Temp file, fsync, rename over the target, fsync the directory: after a SIGKILL or a power cut the
 * target holds the old or the new text, never half of one. `sync` false skips the fsyncs (a cache).
 */
export function writeDurably(file: string, text: string, sync = true): void {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  if (!sync) return;
  const dfd = openSync(dir, 'r');
  try { fsyncSync(dfd); } finally { closeSync(dfd); }
}
