import type { DataSpec } from '../backtest/data/market-data';
import type { BacktestSpec } from '../backtest/run-backtest';

/** The options of `tradebot backtest` as commander hands them over (before any check). */
export interface BacktestCliOptions {
  strategy: string;
  data: string[];
  from?: string;
  to?: string;
  params?: string;
  balance: string[];
  interval?: string;
  out: string;
  strategies: string;
  risk?: string;
  sweep?: string;
  rankBy?: string;
  workers?: string;
  collateral?: string;
  collateralBalance: string[];
  fillVolumeShare?: string;
  ocoCancelOn?: string;
  allowStrategyErrors?: boolean;
  fullCurve?: boolean;
  walkForward?: string;
  queue?: boolean;
  chunkSize?: string;
}

/** Every option checked before any data is read or worker started. */
export interface BacktestRequest {
  readonly spec: BacktestSpec;
  readonly data: readonly DataSpec[];
  readonly from: number | undefined;
  readonly to: number | undefined;
  readonly out: string;
  readonly allowStrategyErrors: boolean;
  /** `--full-curve`: report.json keeps every point of the equity curve. */
  readonly fullCurve?: boolean | undefined;
}
