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
  /** The --risk JSON text, parsed in the worker. */
  readonly risk?: string | undefined;
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
}

/** One run's numbers, JSON-safe: money as decimal strings, ratios as numbers (null when undefined). */
export interface SweepRunResult {
  readonly index: number;
  readonly params: Readonly<Record<string, unknown>>;
  /** Set when the run failed (e.g. the strategy's schema refused the parameters). */
  readonly error?: string;
  readonly metrics?: Readonly<Record<string, string | number | null>>;
  readonly orders?: number;
  readonly fills?: number;
}

export type ToWorker = { readonly type: 'job'; readonly job: SweepJob } | { readonly type: 'stop' };
export type FromWorker = { readonly type: 'ready' } | { readonly type: 'result'; readonly result: SweepRunResult } | { readonly type: 'fatal'; readonly error: string };
