import * as path from 'node:path';
import { SweepQueueError } from '../../domain/errors';
import { findNamedStrategy } from '../run-backtest';
import type { SweepSetup } from '../sweep/sweep-types';
import type { StrategySources } from './queue-jobs';

/**
 * The strategy module and the local files it imports, as found in `strategiesDir`, each with the
 * SHA-256 of its source. Workers load the strategy from their own folder (code is deployed with the
 * worker, never fetched from the queue, so whoever can write to the queue cannot run code on the
 * workers) and refuse a chunk when these differ from the submitter's.
 */
export function strategySources(setup: SweepSetup, strategiesDir: string): StrategySources {
  const spec = { strategy: setup.strategy, strategiesDir, params: setup.baseParams, balances: {} };
  const found = findNamedStrategy(spec, setup.data.map((d) => d.market));
  return found.sources.map((s) => ({ path: path.relative(strategiesDir, s.file).split(path.sep).join('/'), sha256: s.sha256 }));
}

/** Throws SweepQueueError naming the first file that differs between the worker's strategy and the submitter's. */
export function checkStrategySources(name: string, want: StrategySources, have: StrategySources): void {
  const key = (s: StrategySources): string => s.map((f) => `${f.path}=${f.sha256}`).join('\n');
  if (key(want) === key(have)) return;
  const haveByPath = new Map(have.map((f) => [f.path, f.sha256]));
  const first = want.find((f) => haveByPath.get(f.path) !== f.sha256) ?? have.find((f) => !want.some((w) => w.path === f.path));
  const which = first === undefined ? 'its files' : `${first.path} (${haveByPath.has(first.path) ? 'content differs' : 'missing or extra here'})`;
  throw new SweepQueueError(`strategy ${name}: this worker's copy differs from the submitter's at ${which}; deploy the same strategies to every worker`, { strategy: name });
}
