import { inspect } from 'node:util';

/** What a Secret prints as, everywhere: logs, JSON, template literals, util.inspect, errors. */
export const REDACTED = '[REDACTED]';

/**
 * A value that must never be printed: the API secret, the API key, a Redis password. Every way
 * JavaScript turns an object into text (String(), `${}`, JSON.stringify, util.inspect, console.log,
 * pino's serializer) yields `[REDACTED]`; only `reveal()` returns the value, so the places that need
 * it (signing, connecting) are the ones that say so and can be found with a search.
 *
 * The value sits in an ES private field, which util.inspect (even with showHidden), Object.keys,
 * JSON.stringify and structuredClone do not see.
 */
export class Secret<T = string> {
  readonly #value: T;

  constructor(value: T) {
    this.#value = value;
  }

  /** The value itself. Call it only at the point of use, never to build a log line or an error message. */
  reveal(): T {
    return this.#value;
  }

  /** Compare without revealing the value to the caller. */
  equals(other: Secret<T>): boolean {
    return this.#value === other.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  // Template literals and `+ ''` go through ToPrimitive, which would call valueOf before toString
  // for the 'default' hint; answering here covers every hint.
  [Symbol.toPrimitive](): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return `Secret(${REDACTED})`;
  }

  static isSecret(value: unknown): value is Secret<unknown> {
    return value instanceof Secret;
  }
}
