import { z } from 'zod';

/**
 * The console API's requests and answers, as zod schemas: the handlers validate requests with them,
 * the answers are built to them, and the OpenAPI document (openapi.ts) is generated from them. One
 * definition: a field added here is in the document.
 */
const money = z.string().regex(/^-?\d+(\.\d+)?$/).describe('a decimal number as a string (never a float)');
const ms = z.number().int().describe('Unix time, ms');

export const errorAnswer = z.object({ error: z.string(), code: z.string() }).meta({ id: 'Error' });

export const whoamiAnswer = z.object({ name: z.string(), role: z.enum(['viewer', 'operator']) }).meta({ id: 'Whoami' });

const tradingState = z.enum(['active', 'halted', 'reducing']);

export const statusAnswer = z.object({
  atMs: ms,
  mode: z.enum(['paper', 'live']),
  /** The market clock (the simulator's in paper mode). */
  marketTimeMs: ms,
  tradingState: z.object({ state: tradingState, reason: z.string(), atMs: ms.optional(), seq: z.number().int().optional() }),
  replicas: z.array(z.object({ instance: z.string(), state: tradingState, appliedSeq: z.number().int(), ageMs: z.number().int() })),
  leases: z.array(z.object({ strategy: z.string(), market: z.string(), owner: z.string().optional(), remainingMs: z.number().int().optional() })),
  pausedStrategies: z.array(z.object({ strategy: z.string(), reason: z.string(), sinceMs: ms })),
  /** Guardrails in force (docs/risk.md): what stops (halt: all but cancels; reduce: entries), why, since and until when (absent: an operator lifts it). */
  guardrails: z.array(z.object({
    guard: z.enum(['account_drawdown', 'strategy_drawdown', 'cooldown']), scope: z.string(), action: z.enum(['halt', 'reduce']),
    reason: z.string(), sinceMs: ms, untilMs: ms.optional(),
  })),
  /** The replica that answered, as it sees itself: its readiness checks and its WebSocket streams (unhealthy = on REST polling). */
  answeredBy: z.object({
    ready: z.boolean(),
    checks: z.record(z.string(), z.object({ ok: z.boolean(), reason: z.string().optional() })),
    streams: z.array(z.object({ stream: z.string(), connected: z.boolean(), healthy: z.boolean() })),
  }),
}).meta({ id: 'Status' });

const shadowSummary = z.object({
  candles: z.number().int(), divergentCandles: z.number().int(),
  divergences: z.object({ only_live: z.number().int(), only_shadow: z.number().int(), different: z.number().int() }),
});

export const strategiesAnswer = z.object({
  strategies: z.array(z.object({
    name: z.string(), markets: z.array(z.string()), interval: z.string(),
    live: z.object({ version: z.string(), params: z.unknown() }).optional(),
    shadow: z.object({ version: z.string(), params: z.unknown(), summary: shadowSummary }).optional(),
    previous: z.array(z.string()),
    paused: z.object({ sinceMs: ms, reason: z.string() }).optional(),
    /** The strategy's latest order in the journal: its last signal that became an order. */
    lastSignal: z.object({ candleTime: z.number().int(), market: z.string(), clientOrderId: z.string(), side: z.enum(['buy', 'sell']) }).optional(),
  })),
}).meta({ id: 'Strategies' });

export const positionsAnswer = z.object({
  currency: z.string(),
  positions: z.array(z.object({
    strategy: z.string(), market: z.string(), amount: money, averageEntry: money.optional(), realizedPnl: money, unrealizedPnl: money, fees: money, lastPrice: money.optional(),
  })),
  totals: z.object({ realizedPnl: money, unrealizedPnl: money, realizedToday: money }),
}).meta({ id: 'Positions' });

export const orderView = z.object({
  clientOrderId: z.string(), strategy: z.string(), market: z.string(), side: z.enum(['buy', 'sell']), kind: z.string(),
  amount: money,
  /** The limit price; for an OCO the take-profit's (its stop-loss leg's limit is `stopLimitPrice`). */
  price: money, activationPrice: money.optional(), stopLimitPrice: money.optional(), status: z.string(), filledAmount: money,
  candleTime: z.number().int(), createdAtMs: ms, updatedAtMs: ms, strategyVersion: z.string().optional(), reason: z.string().optional(),
}).meta({ id: 'Order' });

export const ordersQuery = z.strictObject({
  status: z.enum(['open', 'all']).default('open'),
  strategy: z.string().max(200).optional(),
  market: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  /** The `next` of the previous page. */
  cursor: z.string().regex(/^\d{1,7}$/).optional(),
});

export const ordersAnswer = z.object({ orders: z.array(orderView), next: z.string().optional() }).meta({ id: 'Orders' });

export const limitQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(50) });

export const fillsAnswer = z.object({
  fills: z.array(z.object({
    clientOrderId: z.string(), strategy: z.string(), market: z.string(), side: z.enum(['buy', 'sell']), amount: money, price: money, fee: money, marketMs: ms.optional(),
  })),
}).meta({ id: 'Fills' });

export const equityAnswer = z.object({
  currency: z.string(),
  /** Realised PnL accumulated over the journal's fills, by market time; the last point adds today's unrealised PnL. */
  points: z.array(z.object({ marketMs: ms, equity: money })),
}).meta({ id: 'Equity' });

export const driftAnswer = z.object({
  checks: z.array(z.object({ atMs: ms, from: z.number().int(), to: z.number().int(), unexplained: z.number().int(), allowed: z.number().int(), first: z.array(z.string()) })),
}).meta({ id: 'DriftChecks' });

export const auditAnswer = z.object({
  entries: z.array(z.object({
    atMs: ms, who: z.string(), via: z.enum(['cli', 'console']), action: z.string(), target: z.string().optional(), reason: z.string().optional(),
    result: z.enum(['applied', 'refused', 'unconfirmed', 'error']), message: z.string(),
  })),
}).meta({ id: 'Audit' });

export const tradingStateBody = z.strictObject({
  state: tradingState,
  reason: z.string().trim().min(1, 'say why (it is logged, audited and notified)').max(500),
});

export const reloadBody = z.strictObject({ strategy: z.string().min(1).max(200).optional() });
export const emptyBody = z.strictObject({});

export const strategyParams = z.strictObject({ name: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/) });
export const orderParams = z.strictObject({ clientOrderId: z.string().regex(/^[A-Za-z0-9._:-]{1,200}$/) });

export const actionAnswer = z.object({
  ok: z.boolean(),
  /** False: the change was stored but no daemon confirmed it in time (it applies when one does). */
  applied: z.boolean(),
  message: z.string(),
}).meta({ id: 'ActionAnswer' });
