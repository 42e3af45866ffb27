import { Presets, SingleBar } from 'cli-progress';
import type { BatchStatus } from '../backtest/queue/sweep-queue';

/** Progress of a queued batch: a cli-progress bar with an ETA on a terminal, a line per change otherwise (logs, CI, pipes). */
export interface SweepProgress {
  update(status: BatchStatus): void;
  stop(): void;
}

export function createSweepProgress(stream: NodeJS.WriteStream, label: string): SweepProgress {
  if (stream.isTTY === true) {
    const bar = new SingleBar({ stream, format: `${label} |{bar}| {percentage}% {value}/{total} chunks, {failed} failed | ETA {eta_formatted}`, hideCursor: true, etaBuffer: 20 }, Presets.shades_classic);
    let started = false;
    let total = 0;
    return {
      update: (s) => {
        // A walk-forward runs two batches (train, test): a new total starts a new bar.
        if (!started || s.chunks !== total) {
          if (started) bar.stop();
          bar.start(s.chunks, s.done, { failed: s.failed });
          started = true;
          total = s.chunks;
        } else bar.update(s.done, { failed: s.failed });
      },
      stop: () => {
        if (started) bar.stop();
        started = false;
      },
    };
  }
  let last = -1;
  return {
    update: (s) => {
      if (s.done === last) return;
      last = s.done;
      stream.write(`${label}: ${s.done}/${s.chunks} chunks${s.failed > 0 ? `, ${s.failed} failed` : ''} (${s.state})\n`);
    },
    stop: () => undefined,
  };
}
