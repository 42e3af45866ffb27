import { SingleBar, Presets } from 'cli-progress';

/** Download progress: a cli-progress bar on a terminal, a plain line per page otherwise (logs, CI, pipes). */
export interface DownloadProgress {
  start(total: number): void;
  update(done: number, info: { page: number; upTo: number }): void;
  stop(): void;
}

export function createProgress(stream: NodeJS.WriteStream): DownloadProgress {
  if (stream.isTTY === true) {
    const bar = new SingleBar({ stream, format: 'download |{bar}| {percentage}% {value}/{total} candles, page {page}, up to {upTo}', hideCursor: true }, Presets.shades_classic);
    return {
      start: (total) => bar.start(total, 0, { page: 0, upTo: '' }),
      update: (done, info) => bar.update(done, { page: info.page, upTo: iso(info.upTo) }),
      stop: () => bar.stop(),
    };
  }
  let total = 0;
  return {
    start: (t) => {
      total = t;
    },
    update: (done, info) => {
      const pct = total > 0 ? Math.min(100, Math.floor((done / total) * 100)) : 100;
      stream.write(`page ${info.page}: ${done}/${total} candles (${pct} %), up to ${iso(info.upTo)}\n`);
    },
    stop: () => undefined,
  };
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}
