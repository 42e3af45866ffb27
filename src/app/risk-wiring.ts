import type { FrozenConfig } from '../config/load';
import { Decimal } from '../domain/decimal';
import type { MarketRiskLimits, RiskLimits } from '../risk/risk-limits';

type ConfigLimits = FrozenConfig['risk']['defaults'];

function dec(value: string | undefined): Decimal | undefined {
  return value === undefined ? undefined : new Decimal(value);
}

function marketLimits(l: ConfigLimits): MarketRiskLimits {
  return {
    maxOrderNotional: dec(l.maxNotionalPerOrder),
    maxMarketNotional: dec(l.maxNotionalPerMarket),
    maxOpenOrdersPerStrategy: l.maxOpenOrdersPerStrategyMarket,
    priceBand: dec(l.priceBand),
  };
}

/** The `risk` config section as the RiskEngine's limits (decimal strings become Decimals). */
export function riskLimitsFromConfig(risk: FrozenConfig['risk']): RiskLimits {
  const markets: Record<string, MarketRiskLimits> = {};
  for (const [market, limits] of Object.entries(risk.markets)) markets[market] = marketLimits(limits);
  return {
    ...marketLimits(risk.defaults),
    feeMargin: new Decimal(risk.feeMargin),
    dailyLossLimit: dec(risk.dailyLossLimit),
    markets,
  };
}
