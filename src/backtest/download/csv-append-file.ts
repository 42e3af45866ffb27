import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import type { Candle } from '../../domain/candle';
import { BacktestInputError } from '../../domain/errors';
import { CSV_HEADER, formatCsvRow, parseCsvRow } from '../../candle-files/csv-candles';

const TAIL_BYTES = 4096;

/**
 * The output CSV of a download, opened for appending so an interrupted download resumes.
 *
 * Crash safety: rows are only ever appended as whole lines, one page per write() followed by
 * fsync, so a killed process leaves complete rows (a process kill cannot split one write()). If the
 * machine itself died mid-write and left a partial last line, opening the file again cuts it off at
 * the last newline before appending. The header is written (and synced) once, when the file is new.
 */
export class CsvAppendFile {
  private constructor(private fd: number, readonly lastTime: number | undefined, readonly repairedBytes: number) {}

  static open(path: string): CsvAppendFile {
    const fresh = !existsSync(path);
    const fd = openSync(path, fresh ? 'w+' : 'r+');
    try {
      let size = fstatSync(fd).size;
      if (size === 0) {
        writeSync(fd, `${CSV_HEADER}\n`, 0);
        fsyncSync(fd);
        return new CsvAppendFile(fd, undefined, 0);
      }
      const tailStart = Math.max(0, size - TAIL_BYTES);
      const buf = Buffer.alloc(size - tailStart);
      readSync(fd, buf, 0, buf.length, tailStart);
      const text = buf.toString('utf8');
      const lastNewline = text.lastIndexOf('\n');
      let repaired = 0;
      if (lastNewline < text.length - 1) {
        // A partial last line (torn write): drop it.
        const keep = lastNewline < 0 ? tailStart : tailStart + lastNewline + 1;
        repaired = size - keep;
        ftruncateSync(fd, keep);
        size = keep;
      }
      const complete = text.slice(0, lastNewline < 0 ? 0 : lastNewline).split('\n');
      const last = complete.at(-1)?.trim() ?? '';
      if (size === 0 || last === '') {
        if (size === 0) writeSync(fd, `${CSV_HEADER}\n`, 0);
        return new CsvAppendFile(fd, undefined, repaired);
      }
      if (last === CSV_HEADER) return new CsvAppendFile(fd, undefined, repaired);
      if (tailStart === 0 && complete[0]?.trim() !== CSV_HEADER) {
        throw new BacktestInputError(`${path}: not a candle CSV (header must be "${CSV_HEADER}")`, { field: 'out', path });
      }
      const row = parseCsvRow(last);
      return new CsvAppendFile(fd, row.time, repaired);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** Appends the rows as one write, then fsync: after it returns they survive a crash. */
  append(candles: readonly Candle[]): void {
    if (candles.length === 0) return;
    let text = '';
    for (const c of candles) text += `${formatCsvRow(c)}\n`;
    const size = fstatSync(this.fd).size;
    writeSync(this.fd, text, size);
    fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
