// Jest's sequencer, with one change for a run without Jest's timing cache (a fresh clone, CI): the
// suites known to be long start first. Otherwise Jest orders by file size, a short file holding a
// four-minute crash test starts last, and the run waits for it on one worker while the other idles.
// With the cache (any second run on a machine), Jest's own timings decide, as before.
const Sequencer = require('@jest/test-sequencer').default;

/** The longest suites, longest first, as measured by full runs on the 2-core machine (update when one grows). */
const KNOWN_LONG = [
  'test/crash/daemon-kill.test.ts',
  'test/integration/drift/drift-paper.test.ts',
  'test/integration/drift/drift-hours.test.ts',
  'test/crash/failover-drill.test.ts',
  'test/integration/app/strategy-versions.test.ts',
  'test/integration/app/strategy-versions-markets.test.ts',
  'test/integration/app/trading-state-control.test.ts',
  'test/integration/ops/pm2.test.ts',
  'test/integration/backtest/queue-sweep.test.ts',
  'test/crash/crash-submitter.test.ts',
  'test/integration/app/kill-switch.live.test.ts',
];

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((t) => t.duration != null)) return sorted;
    const rank = (t) => {
      const i = KNOWN_LONG.findIndex((suffix) => t.path.endsWith(suffix));
      return i < 0 ? KNOWN_LONG.length : i;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowFirstSequencer;
