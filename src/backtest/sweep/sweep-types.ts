import type { RiskSection } from '../../config/risk-limits';

/**
 * Messages between the sweep coordinator and its worker threads. Only plain JSON crosses the
 * boundary (Decimals travel as strings).
 */

/** Everything a worker needs to load the data and the strategy once. */
export interface SweepSetup {
  readonly strategy: string;
  readonly strategiesDir: string;
  readonly interval?: string | undefined;
  readonly data: readonly { readonly market: string; readonly file: string }[];
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  /** Starting balances as decimal strings. */
  readonly balances: Readonly<Record<string, string>>;
  /** The daemon's `risk` section (parsed --risk, plain JSON). */
  readonly risk?: RiskSection | undefined;
  /** Fixed parameters; each run adds its grid point on top. */
  readonly baseParams: Readonly<Record<string, unknown>>;
  /** Which balance OCOs use (FILL-MODEL.md "Collateral"); default 'separate', as live. */
  readonly collateral?: 'separate' | 'unified' | undefined;
  /** Starting collateral balances as decimal strings (empty when omitted). */
  readonly collateralBalances?: Readonly<Record<string, string>> | undefined;
  /** The fill model's settings as text (FillModelText); absent ones are the defaults. */
  readonly fill?: { readonly volumeShare?: string | undefined; readonly ocoCancelOn?: string | undefined } | undefined;
}

export interface SweepJob {
  readonly index: number;
  readonly params: Readonly<Record<string, unknown>>;
  /** A window of the loaded data (Unix s, `to` exclusive): walk-forward runs one job per window. */
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  /** Trading starts here; the candles from `from` to it only warm the strategy up (walk-forward test windows). */
  readonly tradeFrom?: number | undefined;
  /** Send the run's equity curve back (walk-forward test windows, to stitch them). */
  readonly withEquity?: boolean | undefined;
}

/** One run's numbers, JSON-safe: money as decimal strings, ratios as numbers (null when undefined). */
export interface SweepRunResult {
  readonly index: number;
  readonly params: Readonly<Record<string, unknown>>;
  /** Set when the run could not run (e.g. the strategy's schema refused this combination of parameters). */
  readonly error?: string;
  readonly metrics?: Readonly<Record<string, string | number | null>>;
  /** Orders placed, denied and rejected (cancels not counted). */
  readonly orders?: { readonly placed: number; readonly denied: number; readonly rejected: number };
  readonly fills?: number;
  /** Set when the run ended out of money (its last intents all denied by `balance`, report/out-of-money.ts). */
  readonly outOfMoney?: { readonly since: number; readonly denials: number };
  /** The strategy's failures in this run (StrategyHealth): a run that failed is not taken at face value. */
  readonly strategy?: { readonly errors: number; readonly overruns: number; readonly pauses: number; readonly failed: boolean };
  /** The equity curve (time, equity as decimal text), only when the job asked for it (walk-forward test windows). */
  readonly equity?: readonly (readonly [number, string])[];
}

export type ToWorker = { readonly type: 'job'; readonly job: SweepJob } | { readonly type: 'stop' };
export type FromWorker = { readonly type: 'ready' } | { readonly type: 'result'; readonly result: SweepRunResult } | { readonly type: 'fatal'; readonly error: string };
