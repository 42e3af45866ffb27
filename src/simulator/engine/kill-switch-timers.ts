import type { MarketName } from '../../domain/market';
import type { SimKillSwitch, SimOrderType } from './types';

/** Which order types each kill-switch `types` entry covers: spot orders, or the collateral (OCO) legs. */
const COVERED: Readonly<Record<string, readonly SimOrderType[]>> = {
  spot: ['limit', 'stop limit'],
  margin: ['margin limit', 'margin stop limit'],
  futures: [],
};

/**
 * Kill-switch (dead man's switch) timers: one per account and market. Setting again restarts the
 * timer; null deletes it. `takeDue` hands out (and forgets) the timers whose cancellation time has
 * passed on the market clock, with the order types they cancel.
 */
export class KillSwitchTimers {
  private readonly timers = new Map<string, Map<MarketName, SimKillSwitch>>();

  set(apiKey: string, market: MarketName, timeoutSeconds: number | null, types: readonly string[] | null, nowSeconds: number): SimKillSwitch | null {
    let timers = this.timers.get(apiKey);
    if (timers === undefined) {
      timers = new Map();
      this.timers.set(apiKey, timers);
    }
    if (timeoutSeconds === null) {
      timers.delete(market);
      return null;
    }
    const startTime = Math.floor(nowSeconds);
    const timer: SimKillSwitch = { market, startTime, cancellationTime: startTime + timeoutSeconds, types };
    timers.set(market, timer);
    return timer;
  }

  status(apiKey: string, market?: MarketName): SimKillSwitch[] {
    const timers = [...(this.timers.get(apiKey)?.values() ?? [])];
    return market === undefined ? timers : timers.filter((t) => t.market === market);
  }

  takeDue(nowSeconds: number): { apiKey: string; timer: SimKillSwitch; types: ReadonlySet<SimOrderType> }[] {
    const due: { apiKey: string; timer: SimKillSwitch; types: ReadonlySet<SimOrderType> }[] = [];
    for (const [apiKey, timers] of this.timers) {
      for (const [market, timer] of timers) {
        if (timer.cancellationTime > nowSeconds) continue;
        timers.delete(market);
        due.push({ apiKey, timer, types: new Set((timer.types ?? Object.keys(COVERED)).flatMap((t) => COVERED[t] ?? [])) });
      }
    }
    return due;
  }
}
