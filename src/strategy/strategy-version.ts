import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json';

/** A source file a strategy was built from, with the SHA-256 of its text. */
export interface StrategySource {
  readonly file: string;
  readonly sha256: string;
}

/** Which code and which parameters made an intent: recorded on every order the intent becomes. */
export interface StrategyIdentity {
  /** 12 hex digits of SHA-256 over the sources' hashes (module first): the backtest report's `strategy.version`. */
  readonly version: string;
  /** The parameters after defaults and config overrides, as canonical JSON (keys sorted). */
  readonly params: string;
}

/** The version of a strategy's code: it changes when any file the module loads changes, and only then. */
export function strategyVersion(sources: readonly Pick<StrategySource, 'sha256'>[]): string {
  return createHash('sha256').update(sources.map((f) => f.sha256).join('\n')).digest('hex').slice(0, 12);
}

export function sha256Text(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

export function strategyIdentity(sources: readonly Pick<StrategySource, 'sha256'>[], params: unknown): StrategyIdentity {
  return { version: strategyVersion(sources), params: canonicalJson(params) ?? 'null' };
}
