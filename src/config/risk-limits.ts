import type { z } from 'zod';
import { Decimal } from '../domain/decimal';
import type { MarketRiskLimits, RiskLimits } from '../risk/risk-limits';
import type { riskSection } from './schema';
import type { DeepReadonly } from './load';
import type { DrawdownRule, GuardrailSettings, StrategyGuards } from '../risk/guardrails/guard-rules';

type GuardrailsConfig = RiskSection['guardrails'];

/** The parsed `risk` section (config file, or `tradebot backtest --risk`). */
export type RiskSection = DeepReadonly<z.output<typeof riskSection>>;
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
export function riskLimitsFromConfig(risk: Omit<RiskSection, 'guardrails'>): RiskLimits {
  const markets: Record<string, MarketRiskLimits> = {};
  for (const [market, limits] of Object.entries(risk.markets)) markets[market] = marketLimits(limits);
  return {
    ...marketLimits(risk.defaults),
    feeMargin: new Decimal(risk.feeMargin),
    dailyLossLimit: dec(risk.dailyLossLimit),
    markets,
  };
}

function strategyGuards(g: Partial<GuardrailsConfig['strategyDefaults']>): Partial<StrategyGuards> {
  const out: { -readonly [K in keyof StrategyGuards]?: StrategyGuards[K] } = {};
  if (g.drawdown !== undefined) out.drawdown = g.drawdown.map((r) => drawdownRule(r));
  if (g.cooldown !== undefined) out.cooldown = g.cooldown.map((r) => ({ losses: r.losses, windowMs: r.window, pauseMs: r.pause, scope: r.scope }));
  if (g.budget !== undefined) out.budget = g.budget.share !== undefined ? { share: new Decimal(g.budget.share) } : { amount: new Decimal(g.budget.amount as string) };
  return out;
}

function drawdownRule(r: { max: string; window?: number | undefined; release?: 'operator' | 'window' | undefined }): DrawdownRule {
  return { max: new Decimal(r.max), windowMs: r.window, release: r.release ?? (r.window === undefined ? 'operator' : 'window') };
}

/** `risk.guardrails` as the kernel's GuardrailSettings. */
export function guardrailsFromConfig(risk: { readonly guardrails: GuardrailsConfig }): GuardrailSettings {
  const g = risk.guardrails;
  const defaults = strategyGuards(g.strategyDefaults);
  const strategies: Record<string, Partial<StrategyGuards>> = {};
  for (const [name, s] of Object.entries(g.strategies)) strategies[name] = strategyGuards(s);
  return {
    account: { drawdown: g.account.drawdown.map((r) => ({ ...drawdownRule(r), action: r.action })) },
    strategyDefaults: { drawdown: defaults.drawdown ?? [], cooldown: defaults.cooldown ?? [], budget: defaults.budget },
    strategies,
  };
}
