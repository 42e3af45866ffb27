import type { Decimal } from '../../domain/decimal';
import type { OrderReport } from '../../domain/order';
import type { OrderEventType } from '../../domain/order-state';

export interface ReportOutcome {
  readonly event: Extract<OrderEventType, 'accept' | 'trigger' | 'fill_partially' | 'fill' | 'cancel'>;
  /** Executed base amount, plain decimal string. */
  readonly filledAmount: string;
  /** Executed money amount and fees so far (the venue's deal money and deal fee). */
  readonly filledMoney: string;
  readonly fee: string;
}

/**
 * What an exchange report means for the journal. The venue's status text is not trusted alone
 * (extra facts: `FILLED` shows up on freshly created resting orders in some examples, OCO legs say
 * `OPEN`): filled means nothing is left AND the whole amount traded; canceled is read from the status
 * text (`CANCELED`, `CANCELED_STP`, `AUTO_CANCELED_*`), since a canceled order keeps its `left`.
 * "The whole amount traded" is checked on the deal amount too: the venue's order history has no
 * `left` at all, so a history row of an order partly filled, then cancelled must not read as filled.
 * `ordered`: the amount the journal sent (journal-updater.ts passes it): "the whole amount" is the
 * journal's, never the one a report says, so no report can finish an order by showing a smaller one.
 */
export function outcomeOfReport(report: OrderReport, ordered: Decimal = report.amount): ReportOutcome {
  const filled = { filledAmount: text(report.dealStock), filledMoney: text(report.dealMoney), fee: text(report.dealFee) };
  const status = (report.status ?? '').toUpperCase();
  const traded = report.dealStock.greaterThan(0);
  if (traded && report.left.lessThanOrEqualTo(0) && report.dealStock.greaterThanOrEqualTo(ordered)) return { event: 'fill', ...filled };
  if (status.includes('CANCEL')) return { event: 'cancel', ...filled };
  if (traded) return { event: 'fill_partially', ...filled };
  if (report.activationPrice !== undefined && report.activated === true) return { event: 'trigger', ...filled };
  return { event: 'accept', ...filled };
}

/** `d.toString()`; most reports have traded nothing, and formatting a Decimal costs a few microseconds. */
function text(d: Decimal): string {
  return d.isZero() ? '0' : d.toString();
}

/** True for a report of the stop-loss leg of an OCO (it has a trigger), false for the take-profit leg. */
export function isStopLeg(report: OrderReport): boolean {
  return report.activationPrice !== undefined || report.type.includes('stop');
}
