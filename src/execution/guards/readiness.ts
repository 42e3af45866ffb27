/**
 * "May the executor submit?" Set by the reconciler once its first pass succeeded (practice: nothing
 * is submitted before the journal and the exchange agree), cleared for good by shutdown. Also the
 * /readyz check of the daemon (`check()`).
 */
export class Readiness {
  private reconciled = false;
  private stopping = false;
  private lastError: string | undefined;

  markReconciled(): void {
    this.reconciled = true;
    this.lastError = undefined;
  }

  markFailed(error: string): void {
    this.lastError = error;
  }

  markStopping(): void {
    this.stopping = true;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** True when submitting is allowed. */
  isReady(): boolean {
    return this.reconciled && !this.stopping;
  }

  /** Why not ready, for NotReadyError and /readyz. */
  reason(): string | undefined {
    if (this.stopping) return 'shutting down';
    if (!this.reconciled) return `first reconciliation has not succeeded yet${this.lastError ? ` (last error: ${this.lastError})` : ''}`;
    return undefined;
  }

  /** Shape of a /readyz check (src/metrics/server.ts ReadinessCheck): a reason code, never the error text. */
  check(): { ok: boolean; reason?: string } {
    if (this.stopping) return { ok: false, reason: 'stopping' };
    if (!this.reconciled) return { ok: false, reason: 'not_reconciled' };
    return { ok: true };
  }
}
