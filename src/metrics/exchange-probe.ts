import type { Clock } from '../core/clock';
import { TradebotError } from '../domain/errors';
import type { ExchangeClient } from '../exchange/exchange-client';
import type { CheckResult } from './server';

/**
 * Readiness of the exchange: it answers ping. The answer is cached for `ttlMs` (default 5 s) so
 * frequent probes do not spend the exchange's request budget. Not ready until `attach` is called.
 */
export class ExchangeProbe {
  private exchange: Pick<ExchangeClient, 'ping'> | undefined;
  private last: { atMs: number; result: CheckResult } | undefined;

  constructor(private readonly clock: Clock, private readonly ttlMs = 5000) {}

  attach(exchange: Pick<ExchangeClient, 'ping'>): void {
    this.exchange = exchange;
  }

  async check(): Promise<CheckResult> {
    const exchange = this.exchange;
    if (exchange === undefined) return { ok: false, reason: 'starting' };
    const now = this.clock.nowMs();
    if (this.last !== undefined && now - this.last.atMs < this.ttlMs) return this.last.result;
    let result: CheckResult;
    try {
      result = (await exchange.ping()) ? { ok: true } : { ok: false, reason: 'no_pong' };
    } catch (err) {
      result = { ok: false, reason: err instanceof TradebotError ? err.code : 'unreachable' };
    }
    this.last = { atMs: now, result };
    return result;
  }
}
