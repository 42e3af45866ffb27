import { Decimal } from '../../domain/decimal';
import { ClientOrderIdIgnoredError, TradebotError } from '../../domain/errors';
import type { OcoReport, OrderReport } from '../../domain/order';
import type { DialectName } from '../wire/dialects';
import { ForeignDialectAnswerError } from './foreign-dialect';
import type { RequestRunner } from './request-runner';

/**
 * The client-id echo guard. The live venue silently IGNORES a body field it does not know, so a
 * client spelling a field in another wire dialect gets orders without it. The guard checks every
 * order-create answer and, when it proves the venue read the request differently, cancels the order
 * at once by its exchange id (in the dialect the venue answered in) and throws
 * ClientOrderIdIgnoredError; the daemon then halts trading and tells the operator to check
 * `exchange.dialect`.
 *
 * - Stop-limit: the answer must echo the client order id sent (the venue documents the echo). The id
 *   is what finds the order again after a lost answer.
 * - OCO: the venue documents `"clientOrderId": ""` on both legs of its create answer, whatever the
 *   request sent, so the echo cannot be demanded. The guard checks instead (1) the answer's SHAPE: an
 *   answer in the other dialect's field names is a wrong dialect, and (2) that the legs describe the
 *   OCO that was sent (market, side, amount, the three prices), and carry either no id or the id
 *   sent. The id's spelling is the same entry of the dialect table for both order kinds, so the
 *   stop-limit echo proves it for OCOs too. An OCO is found again by its exchange ids, or by its
 *   fingerprint when the answer was lost (execution/reconciliation/order-locator.ts).
 */
export class ClientIdEchoGuard {
  constructor(
    private readonly dialect: DialectName,
    private readonly runner: RequestRunner,
    /** A runner speaking another dialect (same credentials, nonces and limiter), for the cancel. */
    private readonly runnerIn: (dialect: DialectName) => RequestRunner,
  ) {}

  async placeStopLimit(params: Readonly<Record<string, unknown>>): Promise<OrderReport> {
    const { value, answeredIn } = await this.create<OrderReport>('stopLimit', params);
    const sent = sentId(params);
    if (answeredIn === this.dialect && echoes(value, sent)) return value;
    const market = String(params['market']);
    const cancel = await this.tryCancel(() => this.runnerIn(answeredIn).call('cancelOrder', { market, orderId: value.orderId }, 'high'));
    throw this.ignored('stopLimit', market, sent, value.clientOrderId, answeredIn, cancel, { orderId: value.orderId }, [cancel.report ?? value], undefined);
  }

  async placeOco(params: Readonly<Record<string, unknown>>): Promise<OcoReport> {
    const { value, answeredIn } = await this.create<OcoReport>('collateralOco', params);
    const sent = sentId(params);
    const differs = answeredIn === this.dialect ? ocoDiffers(value, params, sent) : undefined;
    if (answeredIn === this.dialect && differs === undefined) return value;
    const market = String(params['market']);
    const cancel = await this.tryCancel(() => this.runnerIn(answeredIn).call('cancelOco', { market, orderId: value.id }, 'high'));
    const after = cancel.report ?? value;
    throw this.ignored('collateralOco', market, sent, value.stopLoss.clientOrderId, answeredIn, cancel, { ocoId: value.id }, [after.stopLoss, after.takeProfit], value.id, differs);
  }

  private async create<T>(endpoint: 'stopLimit' | 'collateralOco', params: Readonly<Record<string, unknown>>): Promise<{ value: T; answeredIn: DialectName }> {
    try {
      return { value: (await this.runner.call(endpoint, params)) as T, answeredIn: this.dialect };
    } catch (err) {
      if (err instanceof ForeignDialectAnswerError) return { value: err.answer as T, answeredIn: err.answeredIn };
      throw err;
    }
  }

  private async tryCancel<R>(cancel: () => Promise<R>): Promise<{ readonly report?: R; readonly error?: string }> {
    try {
      return { report: await cancel() };
    } catch (err) {
      return { error: err instanceof TradebotError ? `${err.code}: ${err.message}` : String(err) };
    }
  }

  private ignored(
    endpoint: string, market: string, sent: string | undefined, echoed: string | undefined, answeredIn: DialectName,
    cancel: { readonly report?: unknown; readonly error?: string }, ids: Readonly<Record<string, number>>,
    legs: readonly OrderReport[], ocoId: number | undefined, differs?: string,
  ): ClientOrderIdIgnoredError {
    const what = answeredIn !== this.dialect ? `the exchange answered in the ${answeredIn} dialect`
      : differs ?? `the answer echoed ${echoed === undefined ? 'no client order id' : `"${echoed}"`} instead of "${sent ?? ''}"`;
    const id = ids['ocoId'] !== undefined ? `OCO ${ids['ocoId']}` : `order ${ids['orderId']}`;
    const done = cancel.error === undefined ? `${id} was canceled by its exchange id` : `${id} could NOT be canceled (${cancel.error}): cancel it by hand`;
    const message = `${endpoint} on ${market}: the exchange ignored the client order id (${what}); ${done}. `
      + `Check exchange.dialect (now "${this.dialect}"): it must be the wire dialect the venue speaks (docs/daemon.md, "Wire dialect").`;
    return new ClientOrderIdIgnoredError(message, legs, ocoId, {
      endpoint, market, sentClientOrderId: sent, echoedClientOrderId: echoed, dialect: this.dialect, answeredIn,
      canceled: cancel.error === undefined, ...ids, ...(cancel.error === undefined ? {} : { cancelError: cancel.error }),
    });
  }
}

function sentId(params: Readonly<Record<string, unknown>>): string | undefined {
  const id = params['clientOrderId'];
  return typeof id === 'string' ? id : undefined;
}

/** Nothing to echo when no id was sent; otherwise the answer must carry exactly that id. */
function echoes(report: OrderReport, sent: string | undefined): boolean {
  return sent === undefined || report.clientOrderId === sent;
}

/**
 * How an OCO create answer in our own dialect differs from the request, or undefined. Legs may carry
 * no id (as documented) or the id sent; another id, or another market, side, amount or price means
 * the venue read a different request than the one written.
 */
function ocoDiffers(oco: OcoReport, params: Readonly<Record<string, unknown>>, sent: string | undefined): string | undefined {
  const legs: readonly [string, OrderReport][] = [['stop-loss', oco.stopLoss], ['take-profit', oco.takeProfit]];
  for (const [name, leg] of legs) {
    if (leg.clientOrderId !== undefined && leg.clientOrderId !== sent) return `the ${name} leg carries "${leg.clientOrderId}" instead of "${sent ?? ''}"`;
    if (leg.market !== params['market'] || leg.side !== params['side']) return `the ${name} leg is a ${leg.side} on ${leg.market}, not a ${String(params['side'])} on ${String(params['market'])}`;
    const amount = sameDecimal('amount', leg.amount, params['amount']);
    if (amount !== undefined) return `the ${name} leg's ${amount}`;
  }
  return sameDecimal('take-profit price', oco.takeProfit.price, params['price'])
    ?? sameDecimal('stop-loss activation price', oco.stopLoss.activationPrice, params['activationPrice'])
    ?? sameDecimal('stop-loss limit price', oco.stopLoss.price, params['stopLimitPrice']);
}

function sameDecimal(name: string, answered: Decimal | undefined, sent: unknown): string | undefined {
  if (answered !== undefined && sent !== undefined && answered.equals(new Decimal(String(sent)))) return undefined;
  return `${name} is ${answered?.toString() ?? 'missing'} in the answer, ${String(sent)} in the request`;
}
