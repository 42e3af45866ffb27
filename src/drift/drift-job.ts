import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { toWire, type Wire } from '../strategy/guest/wire';
import type { RecordsSnapshot } from './records-snapshot';
import type { DriftSpec } from './run-drift';

/**
 * One strategy's drift replay as a file for its guest: the spec (no venue: the guest asks no one) and
 * the records it may read. Everything the guest knows of the deployment is in here; it gets no
 * Redis, no secret, no environment.
 */
export interface DriftJob {
  readonly format: 1;
  readonly spec: Wire;
  readonly records: RecordsSnapshot;
}

/** A directory only this user can enter (mkdtemp: a fresh random name, mode 0700), removed with everything in it. */
export interface PrivateDir {
  readonly dir: string;
  remove(): Promise<void>;
}

export async function privateDir(prefix: string): Promise<PrivateDir> {
  const dir = await mkdtemp(path.join(tmpdir(), `${prefix}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes the job to a new file of `dir` (exclusive create, mode 0600): nobody else's file is ever read back. */
export async function writeDriftJob(dir: string, name: string, spec: Omit<DriftSpec, 'venue'>, records: RecordsSnapshot): Promise<string> {
  const file = path.join(dir, `${name}.json`);
  const job: DriftJob = { format: 1, spec: toWire(spec), records };
  await writeFile(file, JSON.stringify(job), { mode: 0o600, flag: 'wx' });
  return file;
}
