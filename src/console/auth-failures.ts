/**
 * Failed authentications per client address over a sliding minute: past the limit the address gets
 * 429 without its token even being checked, so guessing costs a minute per few tries. Bounded: at most
 * `maxAddresses` are remembered (the oldest forgotten first), so a spray of addresses cannot grow it.
 */
export class AuthFailures {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly perMinute: number, private readonly nowMs: () => number = Date.now, private readonly maxAddresses = 10_000) {}

  /** True when this address already failed `perMinute` times in the last minute. */
  blocked(address: string): boolean {
    return this.recent(address).length >= this.perMinute;
  }

  record(address: string): void {
    const list = this.recent(address);
    list.push(this.nowMs());
    this.failures.delete(address);
    if (this.failures.size >= this.maxAddresses) this.failures.delete(this.failures.keys().next().value as string);
    this.failures.set(address, list);
  }

  private recent(address: string): number[] {
    const since = this.nowMs() - 60_000;
    const list = (this.failures.get(address) ?? []).filter((t) => t > since);
    if (list.length === 0) this.failures.delete(address);
    else this.failures.set(address, list);
    return list;
  }
}
