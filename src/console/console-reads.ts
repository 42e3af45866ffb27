import type { z } from 'zod';
import type { GuardStateStore } from '../store/guard-state-store';
import { parseGuardSnapshot } from '../risk/guardrails/guard-snapshot';
import type { Clock } from '../core/clock';
import { Decimal } from '../domain/decimal';
import type { MarketName } from '../domain/market';
import { OrderFeedbackRecorder } from '../execution/kernel/order-feedback-recorder';
import type { AuditLog } from '../operator/audit-log';
import { Portfolio, type PortfolioFill } from '../portfolio/portfolio';
import type { StrategyControlStore } from '../strategy-control/control-store';
import type { VersionStatus } from '../strategy/versions/versioned-host';
import type { LeaseStore } from '../store/lease-store-port';
import type { OrderRecord, OrderStore } from '../store/order-store-port';
import { REPLICA_ALIVE_MS, type TradingStateStore } from '../trading-state/trading-state-store';
import type { TradingState } from '../trading-state/trading-state';
import type * as api from './api-schemas';
import type { DriftCheckList } from './drift-checks';

export interface ConsoleStrategy {
  readonly name: string;
  readonly markets: readonly MarketName[];
  readonly interval: string;
}

export interface ConsoleReadDeps {
  readonly mode: 'paper' | 'live';
  readonly strategies: readonly ConsoleStrategy[];
  readonly orders: Pick<OrderStore, 'listAll' | 'listLive' | 'listByStrategy'>;
  readonly leases: Pick<LeaseStore, 'holder'>;
  readonly tradingState: TradingStateStore;
  /** This daemon's applied state, when nothing is stored yet (risk.initialState). */
  readonly appliedState: () => { readonly state: TradingState; readonly reason: string };
  readonly control: Pick<StrategyControlStore, 'readStatus'>;
  readonly audit: AuditLog;
  readonly drift: DriftCheckList;
  readonly marketClock: Clock;
  readonly wallClock: Clock;
  readonly lastPrice: (market: MarketName) => Decimal | undefined;
  /** The currency PnL is counted in (the markets' money side). */
  readonly currency: string;
  /** The guardrails' shared state (peaks, losses, stops in force). */
  readonly guards: GuardStateStore;
  /** This replica's own health: its readiness checks and streams (the rest of the status is shared). */
  readonly self: () => Promise<Answer<typeof api.statusAnswer>['answeredBy']>;
}

/** How much of the journal the positions, fills and PnL are computed from (newest first): what the daemon seeds from too. */
const JOURNAL_WINDOW = 10_000;

type Answer<S extends z.ZodType> = z.output<S>;

/**
 * What the console shows, read from the stores every replica shares (the journal, the trading-state
 * and control keys, the leases, the audit stream): any replica behind one Service answers the same.
 * Positions and PnL come from a Portfolio fed with the journal's fills by the same recorder the
 * daemon seeds its own with, so the page and `ctx.position` never disagree.
 */
export class ConsoleReads {
  constructor(private readonly d: ConsoleReadDeps) {}

  async status(): Promise<Answer<typeof api.statusAnswer>> {
    const [stored, replicas, leases, versions, answeredBy, guards] = await Promise.all([
      this.d.tradingState.read(), this.d.tradingState.readReplicas(), this.leaseRows(), this.versions(), this.d.self(), this.d.guards.load(),
    ]);
    const applied = this.d.appliedState();
    return {
      atMs: this.d.wallClock.nowMs(), mode: this.d.mode, marketTimeMs: Math.round(this.d.marketClock.nowMs()),
      tradingState: stored === undefined ? applied : { state: stored.state, reason: stored.reason, atMs: stored.atMs, seq: stored.seq },
      replicas: replicas.filter((r) => r.ageMs <= REPLICA_ALIVE_MS).map((r) => ({ instance: r.instance, state: r.state, appliedSeq: r.appliedSeq, ageMs: Math.round(r.ageMs) }))
        .sort((a, b) => a.instance.localeCompare(b.instance)),
      leases,
      pausedStrategies: versions.flatMap((v) => (v.paused === undefined ? [] : [{ strategy: v.strategy, reason: v.paused.reason, sinceMs: v.paused.sinceMs }])),
      guardrails: guards === undefined ? [] : parseGuardSnapshot(guards).latches.map((l) => ({
        guard: l.guard, scope: l.scope, action: l.action, reason: l.reason, sinceMs: l.sinceMs, ...(l.untilMs === undefined ? {} : { untilMs: l.untilMs }),
      })),
      answeredBy,
    };
  }

  async strategies(): Promise<Answer<typeof api.strategiesAnswer>> {
    const versions = new Map((await this.versions()).map((v) => [v.strategy, v]));
    const rows = await Promise.all(this.d.strategies.map(async (s) => {
      const v = versions.get(s.name);
      const last = (await this.d.orders.listByStrategy(s.name, 1))[0];
      return {
        name: s.name, markets: [...s.markets], interval: s.interval, previous: [...(v?.previous ?? [])],
        ...(v === undefined ? {} : { live: { version: v.live.version, params: v.live.params } }),
        ...(v?.shadow === undefined ? {} : {
          shadow: { version: v.shadow.version, params: v.shadow.params, summary: { candles: v.shadow.summary.candles, divergentCandles: v.shadow.summary.divergentCandles, divergences: { ...v.shadow.summary.divergences } } },
        }),
        ...(v?.paused === undefined ? {} : { paused: { ...v.paused } }),
        ...(last === undefined ? {} : { lastSignal: { candleTime: last.candleTime, market: last.market, clientOrderId: last.clientOrderId, side: last.side } }),
      };
    }));
    return { strategies: rows };
  }

  async positions(): Promise<Answer<typeof api.positionsAnswer>> {
    const portfolio = await this.journalPortfolio();
    let unrealized = new Decimal(0);
    const positions = portfolio.states().map((p) => {
      const price = this.d.lastPrice(p.market);
      const view = portfolio.position(p.strategy, p.market, price);
      unrealized = unrealized.plus(view.unrealizedPnl);
      return {
        strategy: p.strategy, market: p.market, amount: p.amount.toString(), realizedPnl: p.realizedPnl.toString(), fees: p.fees.toString(),
        unrealizedPnl: view.unrealizedPnl.toString(),
        ...(p.amount.isZero() ? {} : { averageEntry: p.averageEntry.toString() }),
        ...(price === undefined ? {} : { lastPrice: price.toString() }),
      };
    });
    const realized = portfolio.states().reduce((sum, p) => sum.plus(p.realizedPnl), new Decimal(0));
    return { currency: this.d.currency, positions, totals: { realizedPnl: realized.toString(), unrealizedPnl: unrealized.toString(), realizedToday: portfolio.realizedToday().toString() } };
  }

  async orders(q: z.output<typeof api.ordersQuery>): Promise<Answer<typeof api.ordersAnswer>> {
    const offset = Number(q.cursor ?? '0');
    const source = q.status === 'open' ? (await this.d.orders.listLive()).sort((a, b) => b.createdAtMs - a.createdAtMs) : await this.d.orders.listAll(offset + q.limit + 1);
    const matching = source.filter((r) => (q.strategy === undefined || r.strategy === q.strategy) && (q.market === undefined || r.market === q.market));
    const page = matching.slice(offset, offset + q.limit);
    const more = matching.length > offset + q.limit;
    return { orders: page.map(orderView), ...(more ? { next: String(offset + q.limit) } : {}) };
  }

  async fills(limit: number): Promise<Answer<typeof api.fillsAnswer>> {
    const records = (await this.journalWithFills()).slice(0, limit);
    const fills: Answer<typeof api.fillsAnswer>['fills'] = [];
    // Priced as the daemon prices a fill (the venue's deal money, else the leg's limit): by its own recorder.
    this.seed(records, new Portfolio(this.d.marketClock), (r, fill) => {
      const marketMs = fillTime(r).marketMs;
      fills.push({
        clientOrderId: r.clientOrderId, strategy: r.strategy, market: r.market, side: r.side, amount: r.filledAmount, price: fill.price.toString(), fee: r.fee,
        ...(marketMs === undefined ? {} : { marketMs: Math.round(marketMs) }),
      });
    });
    return { fills };
  }

  async equity(): Promise<Answer<typeof api.equityAnswer>> {
    const byTime = (await this.journalWithFills()).sort((a, b) => fillTime(a).ms - fillTime(b).ms);
    const portfolio = new Portfolio(this.d.marketClock);
    const points: { marketMs: number; equity: string }[] = [];
    const realizedOf = (): Decimal => portfolio.states().reduce((sum, p) => sum.plus(p.realizedPnl), new Decimal(0));
    this.seed(byTime, portfolio, (r) => points.push({ marketMs: Math.round(fillTime(r).ms), equity: realizedOf().toString() }));
    const unrealized = portfolio.states().reduce((sum, p) => sum.plus(portfolio.position(p.strategy, p.market, this.d.lastPrice(p.market)).unrealizedPnl), new Decimal(0));
    points.push({ marketMs: Math.round(this.d.marketClock.nowMs()), equity: realizedOf().plus(unrealized).toString() });
    return { currency: this.d.currency, points };
  }

  async driftChecks(): Promise<Answer<typeof api.driftAnswer>> {
    return { checks: (await this.d.drift.recent()).map((c) => ({ ...c, first: [...c.first] })) };
  }

  async audit(limit: number): Promise<Answer<typeof api.auditAnswer>> {
    return { entries: await this.d.audit.read(limit) };
  }

  private async journalPortfolio(): Promise<Portfolio> {
    const portfolio = new Portfolio(this.d.marketClock);
    // In the journal's order, as the daemon seeds its own at start-up.
    this.seed([...await this.journalWithFills()].sort((a, b) => a.createdAtMs - b.createdAtMs), portfolio);
    return portfolio;
  }

  /** The journal's orders that filled, newest first (the window the daemon seeds from too). */
  private async journalWithFills(): Promise<OrderRecord[]> {
    return (await this.d.orders.listAll(JOURNAL_WINDOW)).filter((r) => r.filledAmount !== '0');
  }

  /** Applies each record's fills to `portfolio` in the order given, by the daemon's recorder; `each` hears the fill a record made. */
  private seed(records: readonly OrderRecord[], portfolio: Portfolio, each?: (r: OrderRecord, fill: PortfolioFill) => void): void {
    const recorder = new OrderFeedbackRecorder({ get: () => Promise.resolve(undefined) }, portfolio);
    let current: OrderRecord | undefined;
    if (each !== undefined) portfolio.onFill((_state, fill) => { if (current !== undefined) each(current, fill); });
    for (const r of records) {
      current = r;
      recorder.seed([r]);
    }
  }

  private async versions(): Promise<VersionStatus[]> {
    const text = await this.d.control.readStatus();
    if (text === undefined) return [];
    try {
      return (JSON.parse(text) as { strategies?: VersionStatus[] }).strategies ?? [];
    } catch {
      return [];
    }
  }

  private async leaseRows(): Promise<Answer<typeof api.statusAnswer>['leases']> {
    const scopes = this.d.strategies.flatMap((s) => s.markets.map((market) => ({ strategy: s.name, market })));
    return Promise.all(scopes.map(async (s) => {
      const h = await this.d.leases.holder(s.strategy, s.market);
      return h === undefined ? s : { ...s, owner: h.owner, remainingMs: Math.round(h.remainingMs) };
    }));
  }
}

/** When a record last filled: the market time kept with the fill, else the wall time (older records). */
function fillTime(r: OrderRecord): { readonly ms: number; readonly marketMs: number | undefined } {
  const h = [...r.history].reverse().find((x) => x.event === 'fill' || x.event === 'fill_partially');
  return { ms: h?.marketMs ?? h?.atMs ?? r.updatedAtMs, marketMs: h?.marketMs };
}

function orderView(r: OrderRecord): Answer<typeof api.orderView> {
  return {
    clientOrderId: r.clientOrderId, strategy: r.strategy, market: r.market, side: r.side, kind: r.kind, amount: r.amount, price: r.price,
    status: r.status, filledAmount: r.filledAmount, candleTime: r.candleTime, createdAtMs: r.createdAtMs, updatedAtMs: r.updatedAtMs,
    ...(r.activationPrice === undefined ? {} : { activationPrice: r.activationPrice }),
    ...(r.stopLimitPrice === undefined ? {} : { stopLimitPrice: r.stopLimitPrice }),
    ...(r.strategyVersion === undefined ? {} : { strategyVersion: r.strategyVersion }),
    ...(r.reason === undefined ? {} : { reason: r.reason }),
  };
}
