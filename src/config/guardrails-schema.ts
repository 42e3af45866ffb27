import { z } from 'zod';
import { Decimal } from '../domain/decimal';
import { DURATION_EXAMPLE, durationSeconds } from '../domain/duration';
import { isPlainDecimal, numberText } from './decimal-string';

/**
 * `risk.guardrails` (docs/risk.md): drawdown stops for the account and per strategy, cooldowns after
 * losing round trips, budgets per strategy. Strict like the rest: an unknown key is an error.
 */
const money = numberText.refine((v) => isPlainDecimal(v) && new Decimal(v).greaterThan(0), { message: 'must be a positive plain decimal number, e.g. "250"' });

const duration = z
  .union([z.string(), z.number()])
  .refine((v) => durationSeconds(v) !== undefined, { message: `must be a duration such as ${DURATION_EXAMPLE}` })
  .transform((v) => (durationSeconds(v) as number) * 1000);

const drawdownFields = {
  /** Money below the peak of equity (realised + marked-to-market PnL) at which the stop trips. */
  max: money,
  /** The peak is the highest equity of this window; absent: the all-time peak. */
  window: duration.optional(),
  /** 'window' (default when a window is set): lifts itself a window after it tripped; 'operator': an operator resumes. */
  release: z.enum(['operator', 'window']).optional(),
};

function releaseKnown<T extends { window?: number | undefined; release?: 'operator' | 'window' | undefined }>(r: T, ctx: z.RefinementCtx): void {
  if (r.release === 'window' && r.window === undefined) {
    ctx.addIssue({ code: 'custom', path: ['release'], message: '"window" needs a window to lift after: set window, or release "operator" for an all-time drawdown' });
  }
}

const strategyDrawdown = z.strictObject(drawdownFields).superRefine(releaseKnown);
const accountDrawdown = z
  .strictObject({ ...drawdownFields, action: z.enum(['halt', 'reduce']).default('halt') })
  .superRefine(releaseKnown);

const cooldown = z.strictObject({
  /** Losing round trips (flat to flat, fees included) that trip it. */
  losses: z.number().int().positive(),
  window: duration,
  /** How long no new entries go out once it tripped. */
  pause: duration,
  scope: z.enum(['strategy', 'market']).default('strategy'),
});

const ratio = numberText.refine((v) => isPlainDecimal(v) && new Decimal(v).greaterThan(0) && new Decimal(v).lessThanOrEqualTo(1), { message: 'must be a share between 0 and 1, e.g. "0.25"' });

const budget = z
  .strictObject({ share: ratio.optional(), amount: money.optional() })
  .refine((b) => (b.share === undefined) !== (b.amount === undefined), { message: 'give exactly one of share (of the account\'s capital) or amount (money)' });

const strategyGuards = z.strictObject({
  drawdown: z.array(strategyDrawdown).optional(),
  cooldown: z.array(cooldown).optional(),
  budget: budget.optional(),
});

export const guardrailsSection = z
  .strictObject({
    account: z.strictObject({ drawdown: z.array(accountDrawdown).default([]) }).prefault({}),
    /** Every strategy's guards unless `strategies` names it. */
    strategyDefaults: strategyGuards.prefault({}),
    strategies: z.record(z.string().regex(/^[A-Za-z0-9._-]{1,40}$/, 'must be a strategy name'), strategyGuards).default({}),
  })
  .superRefine((g, ctx) => {
    // Shares are slices of one capital: more than all of it would let strategies spend each other's money.
    // A share that is no number has its own issue already (this check runs after a failed one too).
    const shares = Object.entries(g.strategies).map(([name, s]) => [name, s.budget?.share] as const).filter(([, v]) => v !== undefined && isPlainDecimal(v));
    const total = shares.reduce((sum, [, v]) => sum.plus(v as string), new Decimal(0));
    if (total.greaterThan(1)) {
      ctx.addIssue({ code: 'custom', path: ['strategies'], message: `budget shares add up to ${total} (${shares.map(([n, v]) => `${n} ${v}`).join(', ')}): at most 1, or strategies could spend each other's money` });
    }
  });

export type GuardrailsSection = z.output<typeof guardrailsSection>;
