import { intervalSeconds, type Interval } from '../../domain/candle';
import { durationSeconds } from '../../domain/duration';
import { BacktestInputError } from '../../domain/errors';
import { parseJsonObject } from '../options';

/** `--walk-forward '{"train":"14d","test":"7d","anchored":false}'`, in seconds. */
export interface WalkForwardWindows {
  readonly trainSeconds: number;
  readonly testSeconds: number;
  /** true: every train window starts at the first candle (it grows); false (default): it rolls with the test window. */
  readonly anchored: boolean;
}

/** One fold: optimise on [trainFrom, trainTo), trade the winner on [testFrom, testTo) (Unix s; testFrom = trainTo). */
export interface Fold {
  readonly index: number;
  readonly trainFrom: number;
  readonly trainTo: number;
  readonly testFrom: number;
  readonly testTo: number;
}

const KEYS = ['train', 'test', 'anchored'];

/** A duration such as `90m`, `12h`, `14d`, `2w` (or seconds as a number). */
export function parseDuration(value: unknown, field: string): number {
  const seconds = durationSeconds(value);
  if (seconds === undefined) {
    throw new BacktestInputError(`--walk-forward ${field}: expected a duration such as "12h", "14d", "2w" (or seconds), got ${JSON.stringify(value)}`, { field: 'walk-forward' });
  }
  return seconds;
}

export function parseWalkForward(text: string): WalkForwardWindows {
  const raw = parseJsonObject(text, '--walk-forward');
  const unknown = Object.keys(raw).filter((k) => !KEYS.includes(k));
  if (unknown.length > 0) throw new BacktestInputError(`--walk-forward: unknown key "${unknown[0]}" (keys: ${KEYS.join(', ')})`, { field: 'walk-forward' });
  if (raw['train'] === undefined || raw['test'] === undefined) throw new BacktestInputError('--walk-forward needs "train" and "test" windows, e.g. {"train":"14d","test":"7d"}', { field: 'walk-forward' });
  const anchored = raw['anchored'] ?? false;
  if (typeof anchored !== 'boolean') throw new BacktestInputError('--walk-forward anchored: expected true or false', { field: 'walk-forward' });
  return { trainSeconds: parseDuration(raw['train'], 'train'), testSeconds: parseDuration(raw['test'], 'test'), anchored };
}

/**
 * The folds over the data [first, end): boundaries on the strategy interval's grid from the first
 * whole strategy candle; test windows tile the data after the first train window, each train window
 * ends where its test window starts. The last test window may be cut short by the end of the data.
 * Throws when a window is not a whole number of strategy candles or the data holds no full fold.
 */
export function walkForwardFolds(first: number, end: number, interval: Interval, w: WalkForwardWindows): Fold[] {
  const step = intervalSeconds(interval);
  for (const [name, seconds] of [['train', w.trainSeconds], ['test', w.testSeconds]] as const) {
    if (seconds % step !== 0) throw new BacktestInputError(`--walk-forward ${name}: ${seconds} s is not a whole number of ${interval} strategy candles`, { field: 'walk-forward' });
  }
  const start = Math.ceil(first / step) * step;
  const folds: Fold[] = [];
  for (let testFrom = start + w.trainSeconds; testFrom + step <= end; testFrom += w.testSeconds) {
    folds.push({ index: folds.length, trainFrom: w.anchored ? start : testFrom - w.trainSeconds, trainTo: testFrom, testFrom, testTo: Math.min(testFrom + w.testSeconds, end) });
  }
  if (folds.length === 0) {
    throw new BacktestInputError(`--walk-forward: the data (${iso(first)} .. ${iso(end)}) is shorter than one train window plus one ${interval} candle`, { field: 'walk-forward' });
  }
  return folds;
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}
