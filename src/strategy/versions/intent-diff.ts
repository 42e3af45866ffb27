import type { Intent } from '../../domain/intent';

/** How the live and the shadow version's intents for one candle differ. */
export type DivergenceKind = 'only_live' | 'only_shadow' | 'different';
export const DIVERGENCE_KINDS: readonly DivergenceKind[] = ['only_live', 'only_shadow', 'different'];

export interface Divergence {
  readonly kind: DivergenceKind;
  /** The intent's identity: kind, market, side and tag (a cancel: its client order id). */
  readonly key: string;
  /** Short text of each side's intent (prices and amounts), for `tradebot shadow` and the logs. */
  readonly live?: string | undefined;
  readonly shadow?: string | undefined;
}

/**
 * The intents two versions emitted for ONE candle, compared by identity: the same identity is the
 * same order (the client order id derives from strategy, market, candle time, leg and tag, never
 * from the version), so an intent both emit with the same prices and amount is no divergence.
 */
export function diffIntents(live: readonly Intent[], shadow: readonly Intent[]): Divergence[] {
  const byKey = (list: readonly Intent[]): Map<string, Intent> => new Map(list.map((i) => [identity(i), i]));
  const l = byKey(live);
  const s = byKey(shadow);
  const out: Divergence[] = [];
  for (const [key, a] of l) {
    const b = s.get(key);
    if (b === undefined) out.push({ kind: 'only_live', key, live: describeIntent(a) });
    else if (describeIntent(a) !== describeIntent(b)) out.push({ kind: 'different', key, live: describeIntent(a), shadow: describeIntent(b) });
  }
  for (const [key, b] of s) if (!l.has(key)) out.push({ kind: 'only_shadow', key, shadow: describeIntent(b) });
  return out;
}

function identity(i: Intent): string {
  if (i.kind === 'cancel') return `cancel ${i.market} ${i.clientOrderId}`;
  return `${i.kind} ${i.market} ${i.side}${i.tag === undefined ? '' : ` #${i.tag}`}`;
}

/** Prices and amount as exact decimal strings (never floats). */
export function describeIntent(i: Intent): string {
  if (i.kind === 'cancel') return `cancel ${i.clientOrderId}`;
  if (i.kind === 'trailing_stop') return `${i.kind} ${i.side} amount=${i.amount.toString()} trail=${i.trail.toString()} step=${i.step.toString()} limitOffset=${i.limitOffset.toString()}`;
  const stop = i.kind === 'oco' ? ` stopLimit=${i.stopLimitPrice.toString()}` : '';
  return `${i.kind} ${i.side} amount=${i.amount.toString()} price=${i.price.toString()} activation=${i.activationPrice.toString()}${stop}`;
}
