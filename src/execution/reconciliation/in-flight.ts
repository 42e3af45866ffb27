/**
 * Submissions and cancels running right now in this process, by client order id. Shutdown waits for
 * them (`drain`), and the settler leaves them alone: a request of ours still waiting for its answer
 * must not be declared "not found".
 */
export class InFlight {
  /** By a number of this process's own (a Symbol per call cost more: every order and cancel is tracked). */
  private readonly running = new Map<number, { ids: readonly string[]; done: Promise<unknown> }>();
  private nextKey = 0;
  private readonly ids = new Map<string, number>();

  get size(): number {
    return this.running.size;
  }

  has(clientOrderId: string): boolean {
    return (this.ids.get(clientOrderId) ?? 0) > 0;
  }

  /** Runs `work` tracked under `ids` until it settles (either way). */
  async track<T>(ids: readonly string[], work: () => Promise<T>): Promise<T> {
    const key = this.nextKey++;
    for (const id of ids) this.ids.set(id, (this.ids.get(id) ?? 0) + 1);
    const done = work();
    this.running.set(key, { ids, done });
    try {
      return await done;
    } finally {
      this.running.delete(key);
      for (const id of ids) {
        const n = (this.ids.get(id) ?? 1) - 1;
        if (n <= 0) this.ids.delete(id);
        else this.ids.set(id, n);
      }
    }
  }

  /** Resolves true once nothing is running, false when `timeoutMs` passed first. */
  async drain(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.running.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, left);
      });
      await Promise.race([Promise.allSettled([...this.running.values()].map((r) => r.done)), timeout]);
      if (timer) clearTimeout(timer);
    }
    return true;
  }
}
