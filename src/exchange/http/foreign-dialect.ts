import { BadResponseError } from '../../domain/errors';
import { answerSchema } from '../wire/answers';
import { DIALECT_NAMES, DIALECTS, type DialectName } from '../wire/dialects';
import type { EndpointId } from '../wire/endpoints';

/** The order-create endpoints: their answers must echo the client order id (echo-guard.ts). */
export const ORDER_CREATE_ENDPOINTS: ReadonlySet<EndpointId> = new Set<EndpointId>(['stopLimit', 'collateralOco']);

/**
 * An order-create answer that is not in this client's dialect but reads in another one: the venue
 * speaks that dialect, so the order WAS created and our client order id was not understood. Still a
 * BadResponseError (outcome unknown) for anyone who does not know better; the echo guard reads
 * `answer` (the domain value, parsed in `answeredIn`) to cancel the order by its exchange id.
 */
export class ForeignDialectAnswerError extends BadResponseError {
  constructor(message: string, readonly answeredIn: DialectName, readonly answer: unknown, context: Readonly<Record<string, unknown>>) {
    super(message, { ...context, answeredIn });
  }
}

/** The first other dialect whose schema reads an order-create answer, with the parsed value. */
export function readInOtherDialect(endpoint: EndpointId, json: unknown, own: DialectName): { readonly dialect: DialectName; readonly value: unknown } | undefined {
  if (!ORDER_CREATE_ENDPOINTS.has(endpoint)) return undefined;
  for (const name of DIALECT_NAMES) {
    if (name === own) continue;
    const parsed = answerSchema(DIALECTS[name], endpoint).safeParse(json);
    if (parsed.success) return { dialect: name, value: parsed.data };
  }
  return undefined;
}
