import { intervalSeconds } from '../../domain/candle';
import type { Decimal } from '../../domain/decimal';
import type { Balances, MarketInfo, MarketName } from '../../domain/market';
import type { PreTradeRisk, RiskVerdict } from './risk-port';
import type { RiskEngine } from '../../risk/risk-engine';
import type { OpenOrderView } from '../../risk/open-order-view';
import type { RiskContext, RiskDecision } from '../../risk/risk-checks';
import type { StampedIntent } from '../../strategy/intent-validation';

/** What the gate reads about the account when an intent is checked. */
export interface RiskGateView {
  lastPrice(market: MarketName): Decimal | undefined;
  balances(): Balances;
  /** Every strategy's open orders on the market. */
  openOnMarket(market: MarketName): readonly OpenOrderView[];
  /** One strategy's open orders on every market (its budget). */
  openOfStrategy?(strategy: string): readonly OpenOrderView[];
  /** The wallet OCOs draw on (domain/collateral.ts ocoWallet); default 'collateral', as the venue. */
  readonly ocoWallet?: 'trading' | 'collateral';
}

const OK: RiskVerdict = Object.freeze({ ok: true });

/**
 * The RiskEngine behind the executor's PreTradeRisk port: builds the RiskContext (last price,
 * balances, open orders of the market, market info) and maps a denial to the port's verdict.
 */
export class RiskGate implements PreTradeRisk {
  constructor(private readonly risk: RiskEngine, private readonly view: RiskGateView) {}

  check(stamped: StampedIntent, market: MarketInfo): RiskVerdict {
    return verdict(this.risk.check(stamped.intent, this.context(stamped, market)));
  }

  /** RiskEngine.checkStanding: the rules that do not count our own orders and balances. */
  standing(stamped: StampedIntent, market: MarketInfo): RiskVerdict {
    return verdict(this.risk.checkStanding(stamped.intent, this.context(stamped, market)));
  }

  private context(stamped: StampedIntent, market: MarketInfo): RiskContext {
    const intent = stamped.intent;
    return {
      strategy: stamped.strategy,
      lastPrice: this.view.lastPrice(intent.market),
      balances: this.view.balances(),
      openOrders: this.view.openOnMarket(intent.market),
      marketInfo: market,
      ocoWallet: this.view.ocoWallet,
      // The close of the intent's candle: the guardrails' time, the same in the daemon and a backtest.
      decisionMs: (stamped.candleTime + intervalSeconds(stamped.interval)) * 1000,
      strategyOpenOrders: this.view.openOfStrategy === undefined ? undefined : () => this.view.openOfStrategy?.(stamped.strategy) ?? [],
    };
  }

  recheck(stamped: StampedIntent): RiskVerdict {
    const decision = this.risk.checkTradingState(stamped.intent);
    return decision.allowed ? OK : { ok: false, rule: decision.rule, reason: decision.message };
  }
}

function verdict(decision: RiskDecision): RiskVerdict {
  return decision.allowed ? OK : { ok: false, rule: decision.rule, reason: decision.message };
}
