import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRow } from './bench-types';

/**
 * Runs every compiled benchmark `dist/bench/*.bench.js` (or those whose name contains argv[2]) one
 * after the other and prints one table. Each module exports `run(): Promise<BenchRow[]>`.
 */
async function main(): Promise<void> {
  const filter = process.argv[2] ?? '';
  const files = readdirSync(__dirname).filter((f) => f.endsWith('.bench.js') && f.includes(filter)).sort();
  const rows: (BenchRow & { file: string })[] = [];
  for (const file of files) {
    const mod = (await import(join(__dirname, file))) as { run?: () => Promise<BenchRow[]> };
    if (typeof mod.run !== 'function') {
      process.stderr.write(`${file}: no run() export, skipped\n`);
      continue;
    }
    process.stderr.write(`running ${file}...\n`);
    for (const row of await mod.run()) rows.push({ ...row, file });
  }
  const table = rows.map((r) => [r.file.replace(/\.bench\.js$/, ''), r.name, formatValue(r.value), r.unit, r.note ?? '']);
  const header = ['bench', 'name', 'value', 'unit', 'note'];
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ');
  process.stdout.write(`${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n`);
  for (const row of table) process.stdout.write(`${line(row)}\n`);
}

function formatValue(v: number): string {
  return Number.isInteger(v) ? v.toLocaleString('en-US') : String(v);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exitCode = 1;
});
