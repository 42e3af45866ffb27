/**
 * Where signed requests get their nonce. With `nonceWindow: true` (our default) the exchange wants
 * Unix milliseconds within +-5 s of its clock, never reused. Implementations: the in-memory
 * monotonic source (one process) and the Redis allocator (several processes sharing one key).
 */
export interface NonceSource {
  /** A fresh nonce for `apiKey`, strictly greater than every nonce this source handed out for it before. */
  nextNonce(apiKey: string): Promise<number>;
  /** The measured server clock minus the local clock, in ms. Nonces are allocated on the server's clock. */
  setClockOffsetMs(offsetMs: number): void;
}
