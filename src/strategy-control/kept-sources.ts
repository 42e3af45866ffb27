import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Each version's module sources, kept under `<stateDir>/versions/<strategy>/<version>/` (a copy of
 * the strategy directory as it was when that version was read). Guests load from the copy, so a
 * restarted guest, a rollback or a restarted daemon runs exactly that version even after the file
 * in the strategy directory was edited again.
 */
export function keptDir(stateDir: string, strategy: string, version: string): string {
  return path.join(stateDir, 'versions', strategy, version);
}

export function isKept(stateDir: string, strategy: string, version: string): boolean {
  return existsSync(keptDir(stateDir, strategy, version));
}

/** A fresh copy of `dir` (a reload reads and describes the copy, so what is kept is what was checked). */
export function snapshot(dir: string, stateDir: string): string {
  const target = path.join(stateDir, 'snapshots', `${Date.now()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(path.dirname(target), { recursive: true });
  copyDir(dir, target, stateDir);
  return target;
}

/** Keeps `from` (a strategy directory or a snapshot) as the sources of (strategy, version); returns the kept directory. */
export function keep(from: string, stateDir: string, strategy: string, version: string): string {
  const target = keptDir(stateDir, strategy, version);
  if (existsSync(target)) return target;
  const tmp = `${target}.${process.pid}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(path.dirname(target), { recursive: true });
  copyDir(from, tmp, stateDir);
  try {
    renameSync(tmp, target);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(target)) throw err; // else another daemon kept the same version first: same content
  }
  return target;
}

export function dropSnapshot(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Entry by entry, so a state directory inside the strategy directory is not copied into itself. */
function copyDir(from: string, to: string, stateDir: string): void {
  // A snapshot (itself under the state directory) is copied whole.
  const keepOut = outside(stateDir)(from) ? outside(stateDir) : (): boolean => true;
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    const src = path.join(from, entry);
    if (keepOut(src)) cpSync(src, path.join(to, entry), { recursive: true, filter: keepOut });
  }
}

function outside(stateDir: string): (src: string) => boolean {
  const root = path.resolve(stateDir);
  return (src) => { const p = path.resolve(src); return p !== root && !p.startsWith(root + path.sep); };
}
