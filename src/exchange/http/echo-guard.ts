import { ClientOrderIdIgnoredError, TradebotError } from '../../domain/errors';
import type { OcoReport, OrderReport } from '../../domain/order';
import type { DialectName } from '../wire/dialect';
import { ForeignDialectAnswerError } from './foreign-dialect';
import type { RequestRunner } from './request-runner';

/**
 * The client-id echo guard. Every order-create answer must echo the client order id that was sent:
 * the id is the exactly-once safety net (a lost answer is settled by looking the order up by it, a
 * replay after a crash dedupes on it). The live venue silently IGNORES a body field it does not
 * know, so a client spelling the id in another wire dialect gets orders WITHOUT it. When the echo is
 * missing or different, or the answer is in another dialect altogether, the guard cancels the order
 * at once by its exchange id (in the dialect the venue answered in) and throws
 * ClientOrderIdIgnoredError; the daemon then halts trading and tells the operator to check
 * `exchange.dialect`.
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
    if (answeredIn === this.dialect && echoes(value.stopLoss, sent) && echoes(value.takeProfit, sent)) return value;
    const market = String(params['market']);
    const cancel = await this.tryCancel(() => this.runnerIn(answeredIn).call('cancelOco', { market, orderId: value.id }, 'high'));
    const after = cancel.report ?? value;
    throw this.ignored('collateralOco', market, sent, value.stopLoss.clientOrderId, answeredIn, cancel, { ocoId: value.id }, [after.stopLoss, after.takeProfit], value.id);
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
    legs: readonly OrderReport[], ocoId: number | undefined,
  ): ClientOrderIdIgnoredError {
    const what = answeredIn === this.dialect
      ? `the answer echoed ${echoed === undefined ? 'no client order id' : `"${echoed}"`} instead of "${sent ?? ''}"`
      : `the exchange answered in the ${answeredIn} dialect`;
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
