/** One measured number, as printed by bench/run.ts and recorded in bench/RESULTS.md. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  note?: string;
}
