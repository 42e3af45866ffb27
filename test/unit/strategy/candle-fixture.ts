import { readFileSync } from 'node:fs';
import type { Candle } from '../../../src/domain/candle';
import { Decimal } from '../../../src/domain/decimal';
import { sharedDataDir } from '../../helpers/shared-data';

export const DATA_DIR = sharedDataDir();

/** A tiny reader of the shared candle CSVs (time,open,high,low,close,volume): rows [from, from+count). */
export function readCandles(file: string, count: number, from = 0): Candle[] {
  const lines = readFileSync(`${DATA_DIR}/${file}`, 'utf8').split('\n');
  const out: Candle[] = [];
  for (const line of lines.slice(1 + from, 1 + from + count)) {
    if (line === '') continue;
    const [t, o, h, l, c, v] = line.split(',') as [string, string, string, string, string, string];
    const close = new Decimal(c);
    const volume = new Decimal(v);
    out.push({ time: Number(t), open: new Decimal(o), high: new Decimal(h), low: new Decimal(l), close, volume, volumeMoney: volume.times(close) });
  }
  return out;
}
