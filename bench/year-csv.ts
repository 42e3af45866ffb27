import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';

/**
 * A year of 1m candles for the benches (issue #23: 525,600 rows) from the real month: the month's
 * rows repeated with their times shifted by the month's span until `rows` rows, streamed to `file`.
 * Prices repeat (each repeat starts at the month's first open), so the data is real candles, with a
 * jump at each seam. Run alone: `node dist/bench/year-csv.js MONTH.csv OUT.csv [rows]`.
 */
export async function writeYearCsv(month: string, file: string, rows = 525_600): Promise<void> {
  const lines = readFileSync(month, 'utf8').trimEnd().split('\n');
  const header = lines[0] as string;
  const data = lines.slice(1).map((l) => { const comma = l.indexOf(','); return [Number(l.slice(0, comma)), l.slice(comma)] as const; });
  const span = (data[data.length - 1] as readonly [number, string])[0] - (data[0] as readonly [number, string])[0] + 60;
  const out = createWriteStream(file);
  out.write(`${header}\n`);
  let n = 0;
  for (let rep = 0; n < rows; rep++) {
    for (const [t, rest] of data) {
      if (n++ >= rows) break;
      if (!out.write(`${t + rep * span}${rest}\n`)) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'close');
}

if (require.main === module) {
  const [month, file, rows] = process.argv.slice(2);
  if (month === undefined || file === undefined) {
    process.stderr.write('usage: node dist/bench/year-csv.js MONTH.csv OUT.csv [rows]\n');
    process.exitCode = 1;
  } else {
    writeYearCsv(month, file, rows === undefined ? undefined : Number(rows)).catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
  }
}
