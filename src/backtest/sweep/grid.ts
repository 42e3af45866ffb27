import { BacktestInputError } from '../../domain/errors';

/**
 * `{"fast":[5,10,20],"slow":[30,50]}` -> every combination, in a fixed order (the first key varies
 * slowest), so a sweep's run numbers are the same every time.
 */
export function expandGrid(grid: Readonly<Record<string, unknown>>): Record<string, unknown>[] {
  const keys = Object.keys(grid);
  if (keys.length === 0) throw new BacktestInputError('--sweep: give at least one parameter with a list of values', { field: 'sweep' });
  let combos: Record<string, unknown>[] = [{}];
  for (const key of keys) {
    const values = grid[key];
    if (!Array.isArray(values) || values.length === 0) {
      throw new BacktestInputError(`--sweep: "${key}" must be a non-empty list of values`, { field: 'sweep', param: key });
    }
    combos = combos.flatMap((c) => values.map((v: unknown) => ({ ...c, [key]: v })));
  }
  if (combos.length > 10_000) throw new BacktestInputError(`--sweep: ${combos.length} combinations; at most 10000`, { field: 'sweep' });
  return combos;
}
