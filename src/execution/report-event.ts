import type { OrderReport } from '../domain/order';
import type { OrderEventType } from '../domain/order-state';

export interface ReportOutcome {
  readonly event: Extract<OrderEventType, 'accept' | 'trigger' | 'fill_partially' | 'fill' | 'cancel'>;
  /** Executed base amount, plain decimal string. */
  readonly filledAmount: string;
}

/**
 * What an exchange report means for the journal. The venue's status text is not trusted alone
 * (extra facts: `FILLED` shows up on freshly created resting orders in some examples, OCO legs say
 * `OPEN`): filled means nothing is left AND something traded; canceled is read from the status text
 * (`CANCELED`, `CANCELED_STP`, `AUTO_CANCELED_*`), since a canceled order keeps its `left`.
 */
export function outcomeOfReport(report: OrderReport): ReportOutcome {
  const filledAmount = report.dealStock.toString();
  const status = (report.status ?? '').toUpperCase();
  const traded = report.dealStock.greaterThan(0);
  if (traded && report.left.lessThanOrEqualTo(0)) return { event: 'fill', filledAmount };
  if (status.includes('CANCEL')) return { event: 'cancel', filledAmount };
  if (traded) return { event: 'fill_partially', filledAmount };
  if (report.activationPrice !== undefined && report.activated === true) return { event: 'trigger', filledAmount };
  return { event: 'accept', filledAmount };
}

/** True for a report of the stop-loss leg of an OCO (it has a trigger), false for the take-profit leg. */
export function isStopLeg(report: OrderReport): boolean {
  return report.activationPrice !== undefined || report.type.includes('stop');
}
