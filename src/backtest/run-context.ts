import type { Interval } from '../domain/candle';
import type { Decimal } from '../domain/decimal';
import type { MarketInfo } from '../domain/market';
import type { RiskSection } from '../config/risk-limits';
import { DEFAULT_FILL_MODEL, fillModelText, type FillModel } from '../domain/fill-model';
import type { CollateralMode } from '../simulator/engine/sim-engine';
import type { FoundStrategy } from '../strategy/strategy-loader';
import { strategyVersion } from '../strategy/strategy-version';
import type { RunDataFile, RunSettings } from './report';

/** Where the fill rules are written down (the report names it; the rules themselves live in the simulator). */
export const FILL_MODEL = 'the simulated exchange\'s fill model (src/simulator/FILL-MODEL.md): orders arrive at the strategy candle\'s close and fill along each data candle\'s price path';

export interface RunSettingsInput {
  readonly found: FoundStrategy;
  readonly data: readonly RunDataFile[];
  readonly dataInterval: Interval;
  readonly from: number | undefined;
  readonly to: number | undefined;
  readonly balances: Readonly<Record<string, Decimal>>;
  readonly markets: readonly MarketInfo[];
  readonly collateral: CollateralMode;
  /** Starting balances of the collateral account (OCO margin); empty = unfunded. */
  readonly collateralBalances?: Readonly<Record<string, Decimal>> | undefined;
  /** The fill model's switches; default DEFAULT_FILL_MODEL. */
  readonly fill?: FillModel | undefined;
  readonly risk: RiskSection;
  readonly strategyRules: { readonly timeBudgetMs: number; readonly maxConsecutiveFailures: number };
}

/** FILL_MODEL with the switches of this run. */
export function fillModelSettings(model: FillModel): string {
  const { volumeShare, ocoCancelOn } = fillModelText(model);
  const volume = volumeShare === 'off' ? 'complete fills (no volume limit)' : `partial fills: the orders of a market fill at most ${volumeShare} of each candle's volume`;
  return `${FILL_MODEL}; ${volume}; an OCO leg cancels the other on its ${ocoCancelOn}; a price jump (gap) fills at the first traded price`;
}

/** The settings a report records so the run can be reproduced and compared. */
export function runSettings(i: RunSettingsInput): RunSettings {
  const s = i.found.strategy;
  const version = strategyVersion(i.found.sources);
  return {
    strategy: { name: s.name, interval: s.interval, params: s.params, version, sources: i.found.sources },
    data: i.data, dataInterval: i.dataInterval, from: i.from, to: i.to,
    startBalances: Object.fromEntries(Object.entries(i.balances).map(([k, v]) => [k, v.toString()])),
    fees: i.markets.map((m) => ({ market: m.name, maker: m.makerFee.toString(), taker: m.takerFee.toString() })),
    fillModel: fillModelSettings(i.fill ?? DEFAULT_FILL_MODEL),
    collateral: i.collateral,
    risk: i.risk as unknown as Readonly<Record<string, unknown>>,
    strategyRules: i.strategyRules,
  };
}

function collateralFunding(balances: Readonly<Record<string, Decimal>> | undefined): string {
  const funded = Object.entries(balances ?? {}).filter(([, v]) => !v.isZero());
  return funded.length === 0
    ? 'collateral account unfunded (no --collateral-balance): every OCO is denied for its margin (rule balance), as live before a transfer funds it'
    : `collateral account funded with ${funded.map(([k, v]) => `${v.toString()} ${k}`).join(', ')} (--collateral-balance): the OCOs' margin comes from it, never from the trading balance`;
}

/**
 * The rules in force that deny, reject or reshape orders by design, in words: the summary states
 * them so a denied entry is never a surprise (e.g. the OCO exits of `collateral: separate` leave the
 * spot stock on the trading balance, which then runs out of money for the next buy).
 */
export function runAssumptions(i: RunSettingsInput): string[] {
  const quote = i.markets[0]?.money ?? 'quote';
  const out = [
    `balance check: a buy needs amount x price x (1 + fee margin ${i.risk.feeMargin}) of ${quote} available on the trading balance, a sell its stock (risk.feeMargin, the daemon's default)`,
    `market rules: amounts and prices are rounded to each market's precision; orders under its minimums are denied (${i.markets.map((m) => `${m.name}: amount >= ${m.minAmount.toString()}, total >= ${m.minTotal.toString()}`).join('; ')})`,
    i.collateral === 'separate'
      ? 'collateral separate (as live): OCOs are margined on the collateral account, so a sell OCO after a spot buy opens a short there while the spot stock stays on the trading balance, whose money then runs down with every entry (--collateral unified lets OCO legs sell the spot stock)'
      : 'collateral unified: OCO legs trade the trading balance like spot orders (the live exchange has no such order)',
    ...(i.collateral === 'separate' ? [collateralFunding(i.collateralBalances)] : []),
    `strategy rules: paused after ${i.strategyRules.maxConsecutiveFailures} consecutive failures for the rest of the run (no one resumes it); onCandle calls over ${i.strategyRules.timeBudgetMs} ms are counted as overruns (live, their intents would be dropped)`,
  ];
  const limits: string[] = [];
  const d = i.risk.defaults;
  if (d.maxNotionalPerOrder !== undefined) limits.push(`max notional per order ${d.maxNotionalPerOrder}`);
  if (d.maxNotionalPerMarket !== undefined) limits.push(`max open notional per market ${d.maxNotionalPerMarket}`);
  if (d.maxOpenOrdersPerStrategyMarket !== undefined) limits.push(`max ${d.maxOpenOrdersPerStrategyMarket} open orders per strategy and market`);
  if (d.priceBand !== undefined) limits.push(`prices within ${d.priceBand} of the last price`);
  if (i.risk.dailyLossLimit !== undefined) limits.push(`entries stop for the UTC day after a realised loss of ${i.risk.dailyLossLimit}`);
  if (Object.keys(i.risk.markets).length > 0) limits.push(`per-market limits for ${Object.keys(i.risk.markets).join(', ')}`);
  if (i.risk.initialState !== 'active') limits.push(`trading state ${i.risk.initialState} from the start`);
  if (limits.length > 0) out.push(`risk limits: ${limits.join('; ')}`);
  return out;
}
