/**
 * The exchange's nonce rules, per API key (exchange-api-extra §2.2):
 * - without nonceWindow: the nonce must be strictly greater than the last one used with the key;
 * - with nonceWindow true: the nonce is Unix ms within +-5 s of the server clock and never reused
 *   (a bounded replay set remembers recent ones; anything older than the window is refused anyway).
 * A refusal is answered like the exchange does (authenticate.ts): a reused or non-increasing nonce with
 * HTTP 429 `Too many requests.`, a nonce outside the window with `Your nonce is more than 5 seconds
 * lesser than the current nonce.`.
 */
export const NONCE_WINDOW_MS = 5_000;

interface KeyState {
  last: number;
  /** nonce -> true, in arrival order; pruned from the front. */
  readonly seen: Map<number, true>;
}

export class NonceGuard {
  private readonly keys = new Map<string, KeyState>();

  constructor(private readonly maxRemembered = 200_000) {}

  /** Records the nonce and answers 'ok' if it is acceptable now; otherwise why not. */
  accept(apiKey: string, nonce: number, nonceWindow: boolean, nowMs: number): 'ok' | 'reused' | 'outside_window' {
    let state = this.keys.get(apiKey);
    if (state === undefined) {
      state = { last: 0, seen: new Map() };
      this.keys.set(apiKey, state);
    }
    if (nonceWindow) {
      if (Math.abs(nonce - nowMs) > NONCE_WINDOW_MS) return 'outside_window';
      if (state.seen.has(nonce)) return 'reused';
    } else if (nonce <= state.last) {
      return 'reused';
    }
    if (nonce > state.last) state.last = nonce;
    state.seen.set(nonce, true);
    this.prune(state, nowMs);
    return 'ok';
  }

  private prune(state: KeyState, nowMs: number): void {
    const horizon = nowMs - NONCE_WINDOW_MS;
    for (const nonce of state.seen.keys()) {
      // Arrival order is close to nonce order; stop at the first one still inside the window.
      if (nonce >= horizon && state.seen.size <= this.maxRemembered) break;
      state.seen.delete(nonce);
    }
  }
}
