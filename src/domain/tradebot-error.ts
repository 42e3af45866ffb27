/**
 * The root of the error tree (errors.ts, which re-exports these: import them from there). The root
 * and the decimal error stand apart so that decimal.ts can throw without importing the whole tree,
 * which knows the order types that are made of decimals.
 */
export type ErrorContext = Readonly<Record<string, unknown>>;

export abstract class TradebotError extends Error {
  abstract readonly code: string;
  readonly context: ErrorContext;

  constructor(message: string, context: ErrorContext = {}, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.context = context;
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message, context: this.context };
  }
}

/** A decimal value (price, amount) could not be parsed or is out of range. */
export class InvalidDecimalError extends TradebotError {
  override readonly name = 'InvalidDecimalError';
  readonly code = 'TB_ERR_INVALID_DECIMAL';
}
