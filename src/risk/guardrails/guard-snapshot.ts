import { z } from 'zod';
import { StoreUnavailableError } from '../../domain/errors';
import type { GuardSnapshot } from './guardrails';

const decimalText = z.string().regex(/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i);
const ms = z.number().int();
const latch = z.strictObject({
  guard: z.enum(['account_drawdown', 'strategy_drawdown', 'cooldown']), scope: z.string(), strategy: z.string().optional(), market: z.string().optional(),
  action: z.enum(['halt', 'reduce']), rule: z.number().int().nonnegative(), sinceMs: ms, untilMs: ms.optional(), reason: z.string(),
});
const snapshot = z.strictObject({
  version: z.literal(1),
  tracks: z.record(z.string(), z.strictObject({ peak: decimalText.optional(), current: decimalText, windows: z.record(z.string(), z.array(z.tuple([ms, decimalText]))) })),
  losses: z.strictObject({ times: z.record(z.string(), z.array(ms)), pending: z.array(z.strictObject({ strategy: z.string(), market: z.string() })) }),
  latches: z.array(latch),
  prices: z.record(z.string(), decimalText),
});

/** A stored snapshot, checked: a store that holds something else is named, never half-restored. */
export function parseGuardSnapshot(json: string): GuardSnapshot {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new StoreUnavailableError('the stored guardrail state is not JSON: remove it (the guard key) to start the guardrails afresh, knowing their peaks and stops are then forgotten', { field: 'guardState' });
  }
  const parsed = snapshot.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new StoreUnavailableError(`the stored guardrail state is not one this version reads (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}): remove it to start the guardrails afresh`, { field: 'guardState' });
  }
  return parsed.data as GuardSnapshot;
}
