import { ConfigError } from '../domain/errors';

/**
 * Paper mode trades either against the embedded simulator (`paper.markets` + `paper.balances`) or
 * against a running `tradebot sim-exchange` (`paper.exchangeUrl`), which has its own markets,
 * balances, clock and fill model. Exactly one of the two: a mix would silently ignore half of it.
 */
export function paperSourceError(paper: { readonly exchangeUrl?: string | undefined; readonly markets?: unknown; readonly balances?: unknown } | undefined, file: string): ConfigError | undefined {
  if (paper === undefined) return undefined;
  if (paper.exchangeUrl !== undefined) {
    const extra = (['markets', 'balances'] as const).filter((k) => paper[k] !== undefined);
    if (extra.length === 0) return undefined;
    return new ConfigError(`${file}: paper.${extra[0]}: not used with paper.exchangeUrl (the running simulator has its own markets and balances: set them with its flags); remove ${extra.map((k) => `paper.${k}`).join(' and ')}`, {
      file, path: `paper.${extra[0]}`,
    });
  }
  for (const key of ['markets', 'balances'] as const) {
    if (paper[key] === undefined) {
      return new ConfigError(`${file}: paper.${key}: required for the embedded simulator (or set paper.exchangeUrl to use a running tradebot sim-exchange)`, { file, path: `paper.${key}` });
    }
  }
  return undefined;
}
