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
  /**
   * The start-up check of `apiKey`'s stored nonce: one more than `maxClockOffsetMs + maxLeadMs` ahead
   * of the local clock was poisoned by a far-future clock and is replaced by now (`repaired`, with the
   * poisoned value in `last`). A sane one is left alone.
   */
  repairPoisoned(apiKey: string): Promise<{ readonly repaired: boolean; readonly last: number }>;
  /**
   * After the store lost writes (a Redis failover): every stored nonce is raised to the highest this
   * source handed out, so none is repeated or undercut. Returns the keys it had to raise.
   */
  raisePastIssued(): Promise<number>;
}

/**
 * The largest server-minus-local clock offset the daemon follows (60 s). Beyond it the server clock
 * is not trusted: nonces keep the local clock, trading is refused and an alert fires.
 */
export const MAX_CLOCK_OFFSET_MS = 60_000;
