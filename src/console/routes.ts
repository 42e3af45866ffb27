import type { z } from 'zod';
import type { ControlCommand } from '../strategy-control/control-store';
import type { OperatorActions } from '../operator/operator-actions';
import * as api from './api-schemas';
import type { ConsoleReads } from './console-reads';
import type { ConsoleIdentity, ConsoleRole } from './token-book';

export interface RouteInput {
  readonly params: Record<string, string>;
  readonly query: unknown;
  readonly body: unknown;
  readonly who: ConsoleIdentity;
}

/** One endpoint: what it takes and answers (zod, also the OpenAPI document) and who may call it. */
export interface Route {
  readonly method: 'GET' | 'POST';
  /** OpenAPI style: `/api/v1/strategies/{name}/promote`. */
  readonly path: string;
  readonly role: ConsoleRole;
  readonly summary: string;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly answer: z.ZodType;
  handle(input: RouteInput): Promise<unknown>;
}

export interface RouteDeps {
  readonly reads: ConsoleReads;
  readonly actions: OperatorActions;
  /** How long an action waits for the daemon's confirmation. */
  readonly waitMs: number;
}

/** The console's endpoints, in the order the OpenAPI document lists them. */
export function consoleRoutes(d: RouteDeps): readonly Route[] {
  const who = (i: RouteInput): { who: string; via: 'console' } => ({ who: `console:${i.who.name}`, via: 'console' });
  const request = (command: ControlCommand, target: (i: RouteInput) => { strategy?: string; clientOrderId?: string }) => async (i: RouteInput): Promise<z.output<typeof api.actionAnswer>> => {
    const o = await d.actions.requestChange(who(i), command, target(i), d.waitMs);
    return { ok: o.ok === true, applied: o.ok !== undefined, message: o.text };
  };
  const strategyAction = (command: ControlCommand, path: string, summary: string): Route => ({
    method: 'POST', path: `/api/v1/strategies/{name}/${path}`, role: 'operator', summary, params: api.strategyParams, body: api.emptyBody, answer: api.actionAnswer,
    handle: request(command, (i) => ({ strategy: i.params['name']! })),
  });
  return [
    { method: 'GET', path: '/api/v1/whoami', role: 'viewer', summary: 'the caller\'s token name and role', answer: api.whoamiAnswer, handle: (i) => Promise.resolve({ name: i.who.name, role: i.who.role }) },
    { method: 'GET', path: '/api/v1/status', role: 'viewer', summary: 'trading state (stored and per replica), leases, paused strategies', answer: api.statusAnswer, handle: () => d.reads.status() },
    { method: 'GET', path: '/api/v1/strategies', role: 'viewer', summary: 'strategies: live and shadow versions, params, divergences, pause reason, last signal', answer: api.strategiesAnswer, handle: () => d.reads.strategies() },
    { method: 'GET', path: '/api/v1/positions', role: 'viewer', summary: 'positions and PnL per strategy and market (from the journal\'s fills)', answer: api.positionsAnswer, handle: () => d.reads.positions() },
    {
      method: 'GET', path: '/api/v1/orders', role: 'viewer', summary: 'journal orders, open or all, filtered and paged (newest first)', query: api.ordersQuery, answer: api.ordersAnswer,
      handle: (i) => d.reads.orders(i.query as z.output<typeof api.ordersQuery>),
    },
    { method: 'GET', path: '/api/v1/fills', role: 'viewer', summary: 'fills of the journal\'s orders, newest first', query: api.limitQuery, answer: api.fillsAnswer, handle: (i) => d.reads.fills((i.query as { limit: number }).limit) },
    { method: 'GET', path: '/api/v1/equity', role: 'viewer', summary: 'realised PnL over market time; the last point adds the unrealised PnL', answer: api.equityAnswer, handle: () => d.reads.equity() },
    { method: 'GET', path: '/api/v1/drift', role: 'viewer', summary: 'the last drift checks (docs/drift.md)', answer: api.driftAnswer, handle: () => d.reads.driftChecks() },
    { method: 'GET', path: '/api/v1/audit', role: 'viewer', summary: 'the operator actions, CLI and console, newest first', query: api.limitQuery, answer: api.auditAnswer, handle: (i) => d.reads.audit((i.query as { limit: number }).limit) },
    {
      method: 'POST', path: '/api/v1/trading-state', role: 'operator', summary: 'pause (halted), reduce-only (reducing) or resume (active) trading; answered once every running replica applied it',
      body: api.tradingStateBody, answer: api.actionAnswer,
      handle: async (i) => {
        const b = i.body as z.output<typeof api.tradingStateBody>;
        const o = await d.actions.setTradingState(who(i), b.state, `${who(i).who}: ${b.reason}`, d.waitMs);
        return { ok: o.code === 0, applied: o.code === 0, message: o.text };
      },
    },
    { method: 'POST', path: '/api/v1/reload', role: 'operator', summary: 'reload the config and strategy modules: a changed strategy starts as a shadow', body: api.reloadBody, answer: api.actionAnswer, handle: request('reload', (i) => ({ ...((i.body as { strategy?: string }).strategy === undefined ? {} : { strategy: (i.body as { strategy: string }).strategy }) })) },
    strategyAction('promote', 'promote', 'make the shadow version live'),
    strategyAction('rollback', 'rollback', 'return to the version live before'),
    strategyAction('resume', 'resume', 'resume a strategy paused after repeated failures, and lift its guardrails (drawdown stop, cooldowns)'),
    {
      method: 'POST', path: '/api/v1/orders/{clientOrderId}/cancel', role: 'operator', summary: 'cancel one order the daemon placed (both legs of an OCO)', params: api.orderParams, body: api.emptyBody, answer: api.actionAnswer,
      handle: request('cancel', (i) => ({ clientOrderId: i.params['clientOrderId']! })),
    },
  ];
}

/** `/api/v1/strategies/{name}/promote` -> a matcher giving `{ name }`. */
export function pathMatcher(path: string): (url: string) => Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  })}$`);
  return (url) => {
    const m = pattern.exec(url);
    if (m === null) return undefined;
    const out: Record<string, string> = {};
    names.forEach((n, i) => {
      out[n] = decodeURIComponent(m[i + 1]!);
    });
    return out;
  };
}
