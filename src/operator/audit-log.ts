import { appendFile, mkdir, readFile, rename, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { RedisConnection } from '../store/redis';
import type { StoreKeys } from '../store/keys';
import { withStore } from '../store/redis';

/** One operator action: who asked, through which door, what, and what the daemon applied. */
export interface AuditEntry {
  readonly atMs: number;
  /** The console token's name, or the CLI's user. Never a token. */
  readonly who: string;
  readonly via: 'cli' | 'console';
  /** pause, resume, reduce-only, reload, promote, rollback, strategy-resume, cancel. */
  readonly action: string;
  /** The strategy or the client order id acted on, when the action names one. */
  readonly target?: string | undefined;
  readonly reason?: string | undefined;
  /** applied: the daemon confirmed; refused: it said no; unconfirmed: stored, no daemon confirmed in time; error: never stored. */
  readonly result: 'applied' | 'refused' | 'unconfirmed' | 'error';
  /** What the daemon answered (or the error), as the operator saw it. */
  readonly message: string;
}

export interface AuditLog {
  append(entry: AuditEntry): Promise<void>;
  /** The newest first, at most `limit`. */
  read(limit: number): Promise<AuditEntry[]>;
}

/** Entries kept: months of a busy operator, a few MB at most. */
export const AUDIT_MAX_ENTRIES = 10_000;
const MESSAGE_MAX = 2000;

function bounded(entry: AuditEntry): AuditEntry {
  return { ...entry, message: entry.message.slice(0, MESSAGE_MAX), ...(entry.reason === undefined ? {} : { reason: entry.reason.slice(0, 500) }) };
}

function parseEntry(text: string): AuditEntry | undefined {
  try {
    const v = JSON.parse(text) as Partial<AuditEntry>;
    if (typeof v.atMs !== 'number' || typeof v.who !== 'string' || typeof v.action !== 'string' || typeof v.message !== 'string') return undefined;
    return v as AuditEntry;
  } catch {
    return undefined;
  }
}

/** The account's audit stream in Redis (StoreKeys.audit): every replica and every CLI writes the same one. */
export class RedisAuditLog implements AuditLog {
  constructor(private readonly redis: RedisConnection, private readonly keys: StoreKeys) {}

  async append(entry: AuditEntry): Promise<void> {
    await withStore('appendAudit', () => this.redis.xadd(this.keys.audit(), 'MAXLEN', '~', String(AUDIT_MAX_ENTRIES), '*', 'entry', JSON.stringify(bounded(entry))));
  }

  async read(limit: number): Promise<AuditEntry[]> {
    const rows = await withStore('readAudit', () => this.redis.xrevrange(this.keys.audit(), '+', '-', 'COUNT', limit));
    return rows.map(([, fields]) => parseEntry(fields[1] ?? '')).filter((e): e is AuditEntry => e !== undefined);
  }
}

/** Without Redis: JSON lines in the control directory (one daemon on this machine), rotated once at 5 MB. */
export class FileAuditLog implements AuditLog {
  private static readonly ROTATE_BYTES = 5 * 1024 * 1024;
  private readonly file: string;

  constructor(dir: string) {
    this.file = path.join(dir, 'audit.jsonl');
  }

  async append(entry: AuditEntry): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
    const size = await stat(this.file).then((s) => s.size, () => 0);
    if (size > FileAuditLog.ROTATE_BYTES) await rename(this.file, `${this.file}.1`);
    await appendFile(this.file, `${JSON.stringify(bounded(entry))}\n`, { mode: 0o600 });
  }

  async read(limit: number): Promise<AuditEntry[]> {
    const text = await readFile(this.file, 'utf8').catch(() => '');
    return text.split('\n').filter((l) => l !== '').map(parseEntry).filter((e): e is AuditEntry => e !== undefined).reverse().slice(0, limit);
  }
}
