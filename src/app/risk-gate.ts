import type { Decimal } from '../domain/decimal';
import type { Balances, MarketInfo, MarketName } from '../domain/market';
import type { PreTradeRisk, RiskVerdict } from '../execution/risk-port';
import type { RiskEngine } from '../risk/risk-engine';
import type { StampedIntent } from '../strategy/intent-validation';
import type { OpenOrderBook } from './open-order-book';

export interface RiskGateView {
  lastPrice(market: MarketName): Decimal | undefined;
  balances(): Balances;
}

/**
 * Adapter from the executor's PreTradeRisk port to the RiskEngine: it assembles the RiskContext
 * (last price, balances, every open order on the market) from what the daemon knows right now.
 */
export class RiskGate implements PreTradeRisk {
  constructor(private readonly engine: RiskEngine, private readonly book: OpenOrderBook, private readonly view: RiskGateView) {}

  check(stamped: StampedIntent, market: MarketInfo): RiskVerdict {
    const intent = stamped.intent;
    const decision = this.engine.check(intent, {
      strategy: stamped.strategy,
      lastPrice: this.view.lastPrice(intent.market),
      balances: this.view.balances(),
      openOrders: this.book.onMarket(intent.market),
      marketInfo: market,
    });
    return decision.allowed ? { ok: true } : { ok: false, rule: decision.rule, reason: decision.message };
  }
}
