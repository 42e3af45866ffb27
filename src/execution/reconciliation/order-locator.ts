import { BadResponseError, ExchangeValidationError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import type { OcoReport, OrderReport } from '../../domain/order';
import type { ExchangeClient, HistoryQuery } from '../../exchange/exchange-client';
import type { OrderRecord, OrderStore } from '../../store/order-store-port';
import { legRowMatchesRecord, notBeforeMs, ocoMatchesRecord } from './oco-fingerprint';
import { exchangeClientOrderId, siblingLegId } from '../journal/oco-ids';
import { describeDisagreement, reportDisagreement, type Disagreement } from './report-agreement';
import { isStopLeg } from '../journal/report-event';

/** The exchange calls the settler and reconciler need (a narrow slice of the port). */
export type LookupExchange = Pick<ExchangeClient, 'fetchActiveOrders' | 'fetchActiveOcoOrders' | 'fetchOrderHistory'>;

/**
 * Where an order was found. `nowhere` means: neither active nor in history, right now. `ambiguous`:
 * an OCO without exchange ids matched by fingerprint more than once, or only by an order another
 * journal record owns; the caller must not guess (it halts trading).
 */
export type Finding =
  | { readonly where: 'active' | 'history'; readonly report: OrderReport; readonly ocoId?: undefined }
  | { readonly where: 'oco'; readonly report: OrderReport; readonly ocoId: number }
  | { readonly where: 'nowhere'; readonly report?: undefined; readonly ocoId?: undefined }
  | { readonly where: 'ambiguous'; readonly reason: string; readonly report?: undefined; readonly ocoId?: undefined };


/** Active orders and OCOs of some markets, fetched once (the reconciler's batch view). */
export interface ExchangeSnapshot {
  readonly markets: ReadonlySet<MarketName>;
  readonly active: readonly OrderReport[];
  readonly ocos: readonly OcoReport[];
}

const PAGE = 100;

/**
 * Finds the exchange's view of a journal record, by order id when the journal has it, else by the
 * clientOrderId it was sent with; an OCO leg without exchange ids (its create answer was lost: the
 * venue's legs carry no client id) by its fingerprint (oco-fingerprint.ts). Order of the questions
 * matters: active first, then history, so an order that finishes between the two questions is still
 * seen (in history). It only asks; it never sends an order.
 */
export class OrderLocator {
  constructor(
    private readonly exchange: LookupExchange,
    /** The journal, to tell whether a fingerprint match is already another record's order. */
    private readonly journal: Pick<OrderStore, 'listAll'>,
  ) {}

  async locate(record: OrderRecord, snapshot?: ExchangeSnapshot): Promise<Finding> {
    const useSnapshot = snapshot !== undefined && snapshot.markets.has(record.market);
    if (record.kind === 'stop_limit') {
      const active = useSnapshot ? snapshot.active : await this.activeOf(record);
      const hit = findOurs(record, active, 'active');
      if (hit) return hit;
    } else {
      const ocos = useSnapshot ? snapshot.ocos : await this.ocosOf(record.market, []);
      for (const oco of ocos) {
        const leg = legOf(record, oco);
        const byOco = record.ocoId !== undefined && oco.id === record.ocoId;
        if (byOco || matches(record, leg)) return agreed(record, { where: 'oco', report: leg, ocoId: oco.id });
      }
      if (record.orderId === undefined && record.ocoId === undefined) {
        const found = await this.byFingerprint(record, ocos, notBeforeMs(record));
        if (found !== undefined) return found;
      }
    }
    const history = await this.historyOf(record);
    const rows = history.filter((o) => record.kind === 'stop_limit' || isStopLeg(o) === (record.kind === 'oco_sl'));
    return findOurs(record, rows, 'history') ?? { where: 'nowhere' };
  }

  /**
   * An OCO leg whose create answer never came: the OCOs (active) and leg rows (history) that match
   * its fingerprint. One match that no other journal record owns is ours; none: undefined (asked no
   * further by id); more than one, or one owned by another record: ambiguous.
   */
  private async byFingerprint(record: OrderRecord, ocos: readonly OcoReport[], notBeforeMs: number): Promise<Finding | undefined> {
    const active = ocos.filter((oco) => ocoMatchesRecord(oco, record, notBeforeMs));
    const rows = active.length > 0 ? [] : await this.legRowsSince(record, notBeforeMs);
    const total = active.length + rows.length;
    if (total === 0) return undefined;
    const owner = await this.ownerOf(record, active.map((o) => o.id), rows.map((r) => r.orderId));
    if (total === 1 && owner === undefined) {
      const oco = active[0];
      return oco !== undefined ? { where: 'oco', report: legOf(record, oco), ocoId: oco.id } : { where: 'history', report: rows[0]! };
    }
    const ids = [...active.map((o) => `OCO ${o.id}`), ...rows.map((r) => `order ${r.orderId}`)].join(', ');
    return {
      where: 'ambiguous',
      reason: `OCO ${record.clientOrderId} (answer lost) matches ${total} order(s) at the venue by market, side, amount and prices: ${ids}`
        + (owner === undefined ? '' : `; ${owner} already owns one`),
    };
  }

  /** Finished leg rows of the record's market created since `notBeforeMs`, newest first (paged). */
  private async legRowsSince(record: OrderRecord, notBeforeMs: number): Promise<OrderReport[]> {
    const startDate = Math.floor(notBeforeMs / 1000);
    const rows: OrderReport[] = [];
    await pages(rows, `order history of ${record.market}`, (offset) => this.historyPage({ market: record.market, startDate, limit: PAGE, offset }));
    return rows.filter((row) => legRowMatchesRecord(row, record, notBeforeMs));
  }

  /** The journal record (other than this OCO's own legs) that already holds one of these ids. */
  private async ownerOf(record: OrderRecord, ocoIds: readonly number[], orderIds: readonly number[]): Promise<string | undefined> {
    const own = new Set([record.clientOrderId, siblingLegId(record)]);
    for (const other of await this.journal.listAll(OWNERSHIP_SCAN)) {
      if (own.has(other.clientOrderId) || other.market !== record.market) continue;
      if ((other.ocoId !== undefined && ocoIds.includes(other.ocoId)) || (other.orderId !== undefined && orderIds.includes(other.orderId))) {
        return `journal record ${other.clientOrderId}`;
      }
    }
    return undefined;
  }

  /** Every active order and OCO of the markets (paged). */
  async snapshot(markets: Iterable<MarketName>): Promise<ExchangeSnapshot> {
    const set = new Set(markets);
    const active: OrderReport[] = [];
    const ocos: OcoReport[] = [];
    for (const market of set) {
      await pages(active, `active orders of ${market}`, (offset) => this.exchange.fetchActiveOrders({ market, limit: PAGE, offset }));
      await this.ocosOf(market, ocos);
    }
    return { markets: set, active, ocos };
  }

  private activeOf(record: OrderRecord): Promise<OrderReport[]> {
    return record.orderId !== undefined
      ? this.exchange.fetchActiveOrders({ market: record.market, orderId: record.orderId })
      : this.exchange.fetchActiveOrders({ market: record.market, clientOrderId: exchangeClientOrderId(record) });
  }

  private ocosOf(market: MarketName, into: OcoReport[]): Promise<OcoReport[]> {
    return pages(into, `OCOs of ${market}`, (offset) => this.exchange.fetchActiveOcoOrders({ market, limit: PAGE, offset }));
  }

  private historyOf(record: OrderRecord): Promise<OrderReport[]> {
    return this.historyPage(record.orderId !== undefined
      ? { market: record.market, orderId: record.orderId, limit: PAGE }
      : { market: record.market, clientOrderId: exchangeClientOrderId(record), limit: PAGE });
  }

  private async historyPage(query: HistoryQuery): Promise<OrderReport[]> {
    try {
      return await this.exchange.fetchOrderHistory(query);
    } catch (err) {
      // The venue answers an unknown clientOrderId with 422 code 30 `OrderHistory was not found.`
      if (err instanceof ExchangeValidationError && isHistoryNotFound(err)) return [];
      throw err;
    }
  }
}

/** Journal records scanned for the owner of a fingerprint match, newest first (the match is recent). */
const OWNERSHIP_SCAN = 1000;

function legOf(record: OrderRecord, oco: OcoReport): OrderReport {
  return record.kind === 'oco_sl' ? oco.stopLoss : oco.takeProfit;
}

/** The report claims the record: its order id, or (none journaled yet) the client order id sent. */
function matches(record: OrderRecord, report: OrderReport): boolean {
  if (record.orderId !== undefined) return report.orderId === record.orderId;
  return report.clientOrderId === exchangeClientOrderId(record);
}

/**
 * A report found by id is the record's order only when it also agrees on market, side, kind,
 * amount and prices (report-agreement.ts, the rule the account stream applies too). One that
 * claims the record but disagrees is not applied, nor taken as "not there": it is ambiguous, and
 * the caller halts trading rather than guess.
 */
function agreed(record: OrderRecord, finding: Extract<Finding, { where: 'active' | 'history' | 'oco' }>): Finding {
  const differs = reportDisagreement(record, finding.report);
  return differs === undefined ? finding : claimedButDiffers(record, finding.report, finding.where, differs);
}

/** The row that claims the record and agrees with it; else the first that claims it but disagrees (ambiguous); else undefined. */
function findOurs(record: OrderRecord, rows: readonly OrderReport[], where: 'active' | 'history'): Finding | undefined {
  let claimed: Finding | undefined;
  for (const row of rows) {
    if (!matches(record, row)) continue;
    const differs = reportDisagreement(record, row);
    if (differs === undefined) return { where, report: row };
    claimed ??= claimedButDiffers(record, row, where, differs);
  }
  return claimed;
}

function claimedButDiffers(record: OrderRecord, report: OrderReport, where: string, differs: Disagreement): Finding {
  return {
    where: 'ambiguous',
    reason: `order ${report.orderId} at the venue (${where}) claims ${record.clientOrderId} but disagrees with the journal on ${describeDisagreement(differs)}`,
  };
}

function isHistoryNotFound(err: ExchangeValidationError): boolean {
  const fields = Object.entries(err.fieldErrors);
  return fields.some(([field, messages]) => field.toLowerCase() === 'orderhistory' || messages.some((m) => /was not found/i.test(m)));
}

/** Most pages read of one list: 100 pages of 100 = 10,000 open orders in one market. */
export const MAX_PAGES = 100;

/**
 * Appends every page of a list to `into`, row by row (never spreading a page into a call). No total in
 * these answers: a short page is the last one. A list still going after MAX_PAGES is refused with
 * BadResponseError rather than returned cut short: a partial view would make the reconciler think
 * orders are gone.
 */
export async function pages<T>(into: T[], what: string, fetchPage: (offset: number) => Promise<readonly T[]>): Promise<T[]> {
  for (let n = 0; n < MAX_PAGES; n++) {
    const page = await fetchPage(n * PAGE);
    for (const row of page) into.push(row);
    if (page.length < PAGE) return into;
  }
  throw new BadResponseError(`${what}: more than ${MAX_PAGES} pages of ${PAGE} rows; refusing a partial list`, {
    reason: 'page cap', maxPages: MAX_PAGES, pageSize: PAGE,
  });
}
