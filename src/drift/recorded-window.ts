import { BacktestInputError } from '../domain/errors';
import type { DeploymentLog } from '../store/deployment-log-port';

/** A drift window as the deployment's records allow it. */
export interface RecordedWindow {
  /** Unix s, market time: the asked start, or where the records begin when they begin later. */
  readonly from: number;
  readonly to: number;
  /** The asked start when the window was clipped to the records. */
  readonly askedFrom?: number | undefined;
}

/**
 * Clips a window to where the deployment's records begin: a replay starts from the balances recorded
 * at or before its start, and a window that opens before the first run (the daemon's periodic check
 * right after its first start, an operator's guess at `--from`) would otherwise fail for want of them.
 * Null when nothing was recorded inside the window at all.
 */
export async function clipToRecords(log: Pick<DeploymentLog, 'balancesAt' | 'firstBalancesFrom'>, from: number, to: number): Promise<RecordedWindow | null> {
  if ((await log.balancesAt(from * 1000)) !== undefined) return { from, to };
  const first = await log.firstBalancesFrom(from * 1000);
  if (first === undefined || first.marketMs >= to * 1000) return null;
  return { from: Math.ceil(first.marketMs / 1000), to, askedFrom: from };
}

/** The window holds no record of the deployment: nothing to compare (not a failure of the check). */
export class NothingRecordedError extends BacktestInputError {
  constructor(from: number, to: number) {
    super(`nothing recorded between ${new Date(from * 1000).toISOString()} and ${new Date(to * 1000).toISOString()}: the deployment's records (balances, candles) begin later or were not kept`, { field: 'from' });
  }
}
