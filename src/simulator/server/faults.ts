import type { WireEndpointId } from '../../exchange/wire/endpoints';
import { mulberry32 } from '../market/candle-source';

/**
 * Fault injection for the simulated exchange: off by default, switchable at run time, seeded so a
 * test sees the same faults on every run.
 *
 * - `error5xx`:    answer 503 (or 500) before processing: nothing happened.
 * - `rateLimit429`: answer 429 `Too many requests.` before processing (a 429 storm at rate 1).
 * - `timeout`:     hold the request without processing for `timeoutHoldMs`, then drop the connection.
 * - `lostAnswer`:  PROCESS the request (the order is created), then destroy the socket without an answer.
 * Latency (`latencyMs` + up to `jitterMs`) is added before any of these.
 *
 * Rates are shares in [0, 1] drawn from a seeded PRNG. `enqueue` forces the next matching
 * request(s) to get a given fault, for tests that need one exact failure.
 */
export type FaultKind = 'error5xx' | 'rateLimit429' | 'timeout' | 'lostAnswer';

export interface FaultSettings {
  readonly latencyMs: number;
  readonly jitterMs: number;
  readonly error5xxRate: number;
  readonly rateLimitRate: number;
  readonly timeoutRate: number;
  readonly lostAnswerRate: number;
  /** How long a `timeout` fault holds the request before dropping it. Default 30 000. */
  readonly timeoutHoldMs: number;
  /** Only these endpoints get faults; all when undefined. */
  readonly endpoints: readonly WireEndpointId[] | undefined;
}

export const NO_FAULTS: FaultSettings = {
  latencyMs: 0, jitterMs: 0, error5xxRate: 0, rateLimitRate: 0, timeoutRate: 0, lostAnswerRate: 0,
  timeoutHoldMs: 30_000, endpoints: undefined,
};

export interface FaultDecision {
  readonly delayMs: number;
  readonly kind: FaultKind | undefined;
}

export class Faults {
  private settings: FaultSettings = NO_FAULTS;
  private random: () => number;
  private readonly queue: { kind: FaultKind; endpoint: string | undefined; remaining: number }[] = [];
  private readonly counts: Record<FaultKind, number> = { error5xx: 0, rateLimit429: 0, timeout: 0, lostAnswer: 0 };

  constructor(seed = 1) {
    this.random = mulberry32(seed);
  }

  /** Changes some settings (the rest stay); `seed` restarts the PRNG. */
  configure(changes: Partial<FaultSettings> & { readonly seed?: number }): void {
    const { seed, ...rest } = changes;
    this.settings = { ...this.settings, ...rest };
    if (seed !== undefined) this.random = mulberry32(seed);
  }

  /** Back to no faults; clears the queue. */
  reset(): void {
    this.settings = NO_FAULTS;
    this.queue.length = 0;
  }

  current(): FaultSettings {
    return this.settings;
  }

  /** Forces `kind` on the next `count` requests (to `endpoint`, when given). */
  enqueue(kind: FaultKind, options: { endpoint?: WireEndpointId; count?: number } = {}): void {
    this.queue.push({ kind, endpoint: options.endpoint, remaining: options.count ?? 1 });
  }

  /** How many faults of each kind were injected so far. */
  injected(): Readonly<Record<FaultKind, number>> {
    return { ...this.counts };
  }

  /**
   * Decides the fate of one request to `endpoint`. Cheap when faults are off (the benchmark path).
   */
  decide(endpoint: WireEndpointId): FaultDecision {
    const queued = this.queue.find((q) => q.endpoint === undefined || q.endpoint === endpoint);
    if (queued !== undefined) {
      queued.remaining -= 1;
      if (queued.remaining <= 0) this.queue.splice(this.queue.indexOf(queued), 1);
      return this.count({ delayMs: this.delay(), kind: queued.kind });
    }
    const s = this.settings;
    if (s === NO_FAULTS) return { delayMs: 0, kind: undefined };
    if (s.endpoints !== undefined && !(s.endpoints as readonly string[]).includes(endpoint)) return { delayMs: 0, kind: undefined };
    const delayMs = this.delay();
    const roll = this.random();
    let edge = s.error5xxRate;
    if (roll < edge) return this.count({ delayMs, kind: 'error5xx' });
    edge += s.rateLimitRate;
    if (roll < edge) return this.count({ delayMs, kind: 'rateLimit429' });
    edge += s.timeoutRate;
    if (roll < edge) return this.count({ delayMs, kind: 'timeout' });
    edge += s.lostAnswerRate;
    if (roll < edge) return this.count({ delayMs, kind: 'lostAnswer' });
    return { delayMs, kind: undefined };
  }

  private delay(): number {
    const { latencyMs, jitterMs } = this.settings;
    return latencyMs + (jitterMs > 0 ? Math.floor(this.random() * jitterMs) : 0);
  }

  private count(decision: FaultDecision): FaultDecision {
    if (decision.kind !== undefined) this.counts[decision.kind] += 1;
    return decision;
  }
}
