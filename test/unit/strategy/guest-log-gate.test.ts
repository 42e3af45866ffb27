import { capLogData, GUEST_LOG_DEFAULTS, GuestLogGate } from '../../../src/strategy/guest/guest-log-gate';

/** Guest log lines capped in rate and size (issue #29, finding 2: "Guest log lines have no size or rate cap"). */
function gate(perSecond: number, burst: number): { gate: GuestLogGate; advance: (ms: number) => void } {
  let now = 1_000_000;
  return { gate: new GuestLogGate({ perSecond, burst, clock: { nowMs: () => now } }), advance: (ms) => { now += ms; } };
}

describe('GuestLogGate', () => {
  test('passes the burst at once, then drops every further line while no time passes', () => {
    const { gate: g } = gate(5, 10);
    const burst = Array.from({ length: 10 }, () => g.offer());
    expect(burst.every((d) => d.pass && d.droppedBefore === 0)).toBe(true);
    const flood = Array.from({ length: 1000 }, () => g.offer());
    expect(flood.every((d) => !d.pass && d.droppedBefore === 0)).toBe(true);
  });

  test('refills at the rate: perSecond lines a second, never more than the burst', () => {
    const { gate: g, advance } = gate(5, 10);
    for (let i = 0; i < 10; i++) g.offer();
    advance(199); // 0.995 of a token: still nothing
    expect(g.offer().pass).toBe(false);
    advance(1); // 1 token (the dropped offer above costs nothing)
    expect(g.offer().pass).toBe(true);
    expect(g.offer().pass).toBe(false);
    advance(1000); // 5 tokens
    expect(Array.from({ length: 6 }, () => g.offer().pass)).toEqual([true, true, true, true, true, false]);
    advance(3_600_000); // an hour idle refills the burst, not 18000 lines
    expect(Array.from({ length: 11 }, () => g.offer().pass).filter(Boolean)).toHaveLength(10);
  });

  test('the lines dropped are reported once, with the next line that passes', () => {
    const { gate: g, advance } = gate(1, 2);
    g.offer();
    g.offer();
    for (let i = 0; i < 7; i++) expect(g.offer()).toEqual({ pass: false, droppedBefore: 0 });
    advance(1000);
    expect(g.offer()).toEqual({ pass: true, droppedBefore: 7 });
    advance(1000);
    expect(g.offer()).toEqual({ pass: true, droppedBefore: 0 });
  });

  test('a sustained flood at 100x the rate gets the rate through, and every other line is counted', () => {
    const { gate: g, advance } = gate(GUEST_LOG_DEFAULTS.perSecond, GUEST_LOG_DEFAULTS.burst);
    let passed = 0;
    let reported = 0;
    let offered = 0;
    for (let ms = 0; ms < 10_000; ms += 1) {
      for (let i = 0; i < 2; i++) { // 2000 lines a second for 10 s
        const d = g.offer();
        offered++;
        if (d.pass) passed++;
        reported += d.droppedBefore;
      }
      advance(1);
    }
    advance(1000);
    const last = g.offer();
    reported += last.droppedBefore;
    expect(passed).toBeLessThanOrEqual(GUEST_LOG_DEFAULTS.burst + 10 * GUEST_LOG_DEFAULTS.perSecond + 1);
    expect(passed).toBeGreaterThanOrEqual(GUEST_LOG_DEFAULTS.burst + 10 * GUEST_LOG_DEFAULTS.perSecond - 1);
    expect(passed + reported).toBe(offered); // nothing lost without being counted
  });
});

describe('capLogData', () => {
  test('a 1 MB string is cut to the cap and says so, with its original size', () => {
    const huge = 'x'.repeat(1024 * 1024);
    const r = capLogData({ msg: huge }, 2000);
    expect(r.cut).toBe(true);
    const data = r.data as { truncated: string; originalChars: number };
    expect(data.truncated.length).toBeLessThanOrEqual(2000 + 3);
    expect(data.truncated.startsWith('{"msg":"xxx')).toBe(true);
    expect(data.originalChars).toBe(JSON.stringify({ msg: huge }).length);
    expect(JSON.stringify(r.data).length).toBeLessThan(2100);
  });

  test('data within the cap is left alone (the same object)', () => {
    const small = { price: '47310.83', side: 'buy', n: 3 };
    expect(capLogData(small, 2000)).toEqual({ data: small, cut: false });
    expect(capLogData(small, 2000).data).toBe(small);
    const exact = 'y'.repeat(98); // JSON: 100 characters with its quotes
    expect(capLogData(exact, 100)).toEqual({ data: exact, cut: false });
    expect(capLogData(undefined, 10)).toEqual({ data: undefined, cut: false });
  });

  test('circular and BigInt data do not throw: replaced by a marker, reported as cut', () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular['self'] = circular;
    expect(capLogData(circular, 2000)).toEqual({ data: '[unserialisable]', cut: true });
    expect(capLogData({ big: 10n ** 30n }, 2000)).toEqual({ data: '[unserialisable]', cut: true });
  });

  test('a toJSON that throws does not throw here', () => {
    const hostile = { toJSON(): never { throw new Error('boom'); } };
    expect(capLogData(hostile, 2000)).toEqual({ data: '[unserialisable]', cut: true });
  });
});
