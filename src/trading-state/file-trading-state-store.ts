import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import * as path from 'node:path';
import { StoreUnavailableError } from '../domain/errors';
import { writeDurably } from '../store/durable-file';
import {
  parseReport, parseTradingState, randomEpoch, REPLICA_FORGET_MS,
  type AppliedReport, type ReplicaReport, type StoredPosition, type TradingStateChange, type TradingStateRecord, type TradingStateStore,
} from './trading-state-store';

/** A writer that held the lock longer than this is gone (killed mid-write): its lock is broken. */
const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 5000;

/**
 * The trading-state store as files in the daemon's state directory (paper mode without Redis: the
 * daemon and `tradebot pause|resume` on one machine):
 * - `trading-state.json`: {state, reason, atMs, seq, epoch}. `seq` is counted in the file under an
 *   exclusive lock (`trading-state.lock`, created with O_EXCL), so two writers never get the same
 *   seq; written to a temp file, fsynced, renamed and the directory fsynced, so a SIGKILL leaves
 *   the old or the new record, never half of one.
 * - `trading-state-applied/<instance>.json`: what each daemon process applied; its mtime is when.
 */
export class FileTradingStateStore implements TradingStateStore {
  private readonly file: string;
  private readonly lock: string;
  private readonly appliedDir: string;

  constructor(private readonly dir: string) {
    this.file = path.join(dir, 'trading-state.json');
    this.lock = path.join(dir, 'trading-state.lock');
    this.appliedDir = path.join(dir, 'trading-state-applied');
  }

  /** Async so a damaged file rejects the promise rather than throwing. */
  async read(): Promise<TradingStateRecord | undefined> {
    return this.readRecord();
  }

  async write(change: TradingStateChange): Promise<StoredPosition> {
    mkdirSync(this.dir, { recursive: true });
    await this.acquireLock();
    try {
      // A damaged file must not block a pause: the record starts over in a new epoch, which the daemon applies.
      let current: TradingStateRecord | undefined;
      try { current = this.readRecord(); } catch { current = undefined; }
      const position = { seq: (current?.seq ?? 0) + 1, epoch: current?.epoch || randomEpoch() };
      writeDurably(this.file, JSON.stringify({ state: change.state, reason: change.reason, atMs: change.atMs, ...position }));
      return position;
    } finally {
      try { unlinkSync(this.lock); } catch { /* broken by another writer as stale: nothing to release */ }
    }
  }

  reportApplied(report: AppliedReport): Promise<void> {
    writeDurably(path.join(this.appliedDir, `${encodeURIComponent(report.instance)}.json`), JSON.stringify(report), false);
    return Promise.resolve();
  }

  readReplicas(): Promise<ReplicaReport[]> {
    let names: string[];
    try {
      names = readdirSync(this.appliedDir).filter((n) => n.endsWith('.json'));
    } catch {
      return Promise.resolve([]);
    }
    const out: ReplicaReport[] = [];
    const now = Date.now();
    for (const name of names) {
      const file = path.join(this.appliedDir, name);
      try {
        const ageMs = Math.max(0, now - statSync(file).mtimeMs);
        if (ageMs > REPLICA_FORGET_MS) {
          unlinkSync(file);
          continue;
        }
        const report = parseReport(readFileSync(file, 'utf8'));
        if (report !== undefined) out.push({ ...report, ageMs });
      } catch {
        continue; // replaced or removed meanwhile
      }
    }
    return Promise.resolve(out);
  }

  private readRecord(): TradingStateRecord | undefined {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StoreUnavailableError(`cannot read ${this.file}: ${(error as Error).message}`, { file: this.file });
    }
    try {
      const v = JSON.parse(text) as Record<string, unknown>;
      return {
        state: parseTradingState(String(v['state'])), reason: String(v['reason'] ?? ''), atMs: Number(v['atMs'] ?? 0),
        seq: Number(v['seq'] ?? 0), epoch: String(v['epoch'] ?? ''),
      };
    } catch (error) {
      // Never guess a trading state: a damaged file is an error someone must look at.
      throw new StoreUnavailableError(`${this.file} is not a trading-state record: ${(error as Error).message}`, { file: this.file });
    }
  }

  private async acquireLock(): Promise<void> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        closeSync(openSync(this.lock, 'wx'));
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      try {
        if (Date.now() - statSync(this.lock).mtimeMs > STALE_LOCK_MS) unlinkSync(this.lock);
      } catch { /* released meanwhile */ }
      if (Date.now() > deadline) throw new StoreUnavailableError(`${this.lock} held for more than ${LOCK_WAIT_MS / 1000} s by another writer`, { file: this.lock });
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
