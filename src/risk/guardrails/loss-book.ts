import type { CooldownRule } from './guard-rules';

/** A losing round trip waiting for the next settled candle of its market to be counted. */
export interface PendingLoss {
  readonly strategy: string;
  readonly market: string;
}

/**
 * Losing round trips per (strategy, market), stamped with the close of the candle whose settlement
 * saw them (the same candle in a backtest and live, whenever the venue's answer arrived), kept as
 * long as the longest cooldown window needs them.
 */
export class LossBook {
  private readonly times = new Map<string, number[]>();
  private pending: PendingLoss[] = [];

  constructor(private readonly keepMs: number) {}

  add(loss: PendingLoss): void {
    this.pending.push(loss);
  }

  /** Stamps the losses waiting on `market` with `timeMs`; returns them. */
  stamp(market: string, timeMs: number): readonly PendingLoss[] {
    const now = this.pending.filter((p) => p.market === market);
    if (now.length === 0) return now;
    this.pending = this.pending.filter((p) => p.market !== market);
    for (const p of now) {
      const key = `${p.strategy}|${p.market}`;
      const list = (this.times.get(key) ?? []).filter((t) => t > timeMs - this.keepMs);
      list.push(timeMs);
      this.times.set(key, list);
    }
    return now;
  }

  /** Losses counted by the rule's scope within its window ending at `nowMs`. */
  count(rule: CooldownRule, strategy: string, market: string, nowMs: number): number {
    const from = nowMs - rule.windowMs;
    let n = 0;
    for (const [key, list] of this.times) {
      const [s, m] = key.split('|');
      if (s !== strategy || (rule.scope === 'market' && m !== market)) continue;
      for (const t of list) if (t > from && t <= nowMs) n++;
    }
    return n;
  }

  snapshot(): { readonly times: Readonly<Record<string, readonly number[]>>; readonly pending: readonly PendingLoss[] } {
    return { times: Object.fromEntries(this.times), pending: [...this.pending] };
  }

  restore(s: { readonly times: Readonly<Record<string, readonly number[]>>; readonly pending: readonly PendingLoss[] }): void {
    this.times.clear();
    for (const [k, v] of Object.entries(s.times)) this.times.set(k, [...v]);
    this.pending = [...s.pending];
  }
}
