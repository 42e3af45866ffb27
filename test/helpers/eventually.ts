/**
 * Retries `fn` until it resolves, every 100 ms, at most `attempts` times, then throws its last error.
 * For clients that recover by themselves (a Redis reconnect, a failover followed): bounded, and no
 * timing is asserted, so a loaded machine only makes it slower.
 */
export async function eventually<T>(fn: () => Promise<T>, attempts = 100): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
