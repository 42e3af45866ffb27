import { openSweepPool, type SweepPool } from '../sweep/sweep-pool';
import type { SweepJob, SweepRunResult, SweepSetup } from '../sweep/sweep-types';
import { canonicalJson } from '../../core/canonical-json';

/**
 * The sweep worker threads of one `tradebot worker`, per setup (strategy, data, balances...): a
 * setup's threads load its data once and serve every chunk of it, from any number of chunks at a
 * time. Runs happen on threads, so the process's own thread stays free to renew BullMQ's locks.
 * Idle pools beyond `keepIdle` are closed (a worker serving many sweeps keeps only recent data);
 * a pool whose thread died is dropped and the next chunk opens a fresh one.
 */
export class WorkerPools {
  readonly #pools = new Map<string, { pool: Promise<SweepPool>; active: number; used: number }>();
  #clock = 0;

  constructor(private readonly threads: number, private readonly keepIdle = 1) {}

  async run(setup: SweepSetup, jobs: readonly SweepJob[]): Promise<SweepRunResult[]> {
    const key = canonicalJson(setup);
    let entry = this.#pools.get(key);
    if (entry === undefined) {
      entry = { pool: openSweepPool(setup, this.threads), active: 0, used: 0 };
      this.#pools.set(key, entry);
    }
    entry.active++;
    entry.used = ++this.#clock;
    try {
      return await (await entry.pool).run(jobs);
    } catch (err) {
      if (this.#pools.get(key) === entry) this.#pools.delete(key);
      void entry.pool.then((p) => p.close(), () => undefined);
      throw err;
    } finally {
      entry.active--;
      await this.#trim();
    }
  }

  async close(): Promise<void> {
    const all = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.allSettled(all.map(async (e) => (await e.pool).close()));
  }

  async #trim(): Promise<void> {
    const idle = [...this.#pools.entries()].filter(([, e]) => e.active === 0).sort((a, b) => b[1].used - a[1].used);
    for (const [key, e] of idle.slice(this.keepIdle)) {
      this.#pools.delete(key);
      await e.pool.then((p) => p.close(), () => undefined);
    }
  }
}
