import type { Intent } from '../../domain/intent';
import type { MarketName } from '../../domain/market';
import { DIVERGENCE_KINDS, diffIntents, type Divergence, type DivergenceKind } from './intent-diff';

/** One candle on which the live and the shadow version did not emit the same intents. */
export interface DivergentCandle {
  readonly market: MarketName;
  readonly candleTime: number;
  readonly divergences: readonly Divergence[];
}

export interface ShadowSummary {
  /** Candles both versions were compared on since the shadow started. */
  readonly candles: number;
  /** Candles in a row (up to now) on which the shadow did not fail (what auto-promotion counts). */
  readonly cleanCandles: number;
  readonly divergentCandles: number;
  readonly divergences: Readonly<Record<DivergenceKind, number>>;
  /** The latest divergent candles, newest last. */
  readonly recent: readonly DivergentCandle[];
}

const RECENT = 50;

/** What the shadow of one strategy did against the live version, candle by candle. */
export class ShadowRecord {
  private candles = 0;
  private clean = 0;
  private divergent = 0;
  private readonly counts: Record<DivergenceKind, number> = { only_live: 0, only_shadow: 0, different: 0 };
  private readonly recent: DivergentCandle[] = [];

  /** Compares one candle's intents; `failed`: the shadow failed on it (error, overrun, crash). */
  record(market: MarketName, candleTime: number, live: readonly Intent[], shadow: readonly Intent[], failed: boolean): readonly Divergence[] {
    this.candles++;
    this.clean = failed ? 0 : this.clean + 1;
    const divergences = failed ? [] : diffIntents(live, shadow);
    if (divergences.length === 0) return divergences;
    this.divergent++;
    for (const d of divergences) this.counts[d.kind]++;
    this.recent.push({ market, candleTime, divergences });
    if (this.recent.length > RECENT) this.recent.shift();
    return divergences;
  }

  summary(): ShadowSummary {
    const divergences = Object.fromEntries(DIVERGENCE_KINDS.map((k) => [k, this.counts[k]])) as Record<DivergenceKind, number>;
    return { candles: this.candles, cleanCandles: this.clean, divergentCandles: this.divergent, divergences, recent: [...this.recent] };
  }
}
