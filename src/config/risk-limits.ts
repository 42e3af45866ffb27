import type { z } from 'zod';
import { Decimal } from '../domain/decimal';
import type { MarketRiskLimits, RiskLimits } from '../risk/risk-limits';
import type { riskSection } from './schema';

/** The parsed `risk` section (config file, or `tradebot backtest --risk`). */
export type RiskSection = Readonly<z.output<typeof riskSection>>;
type ConfigLimits = RiskSection['defaults'];

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
export function riskLimitsFromConfig(risk: RiskSection): RiskLimits {
  const markets: Record<string, MarketRiskLimits> = {};
  for (const [market, limits] of Object.entries(risk.markets)) markets[market] = marketLimits(limits);
  return {
    ...marketLimits(risk.defaults),
    feeMargin: new Decimal(risk.feeMargin),
    dailyLossLimit: dec(risk.dailyLossLimit),
    markets,
  };
}
