import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { BacktestInputError } from '../../domain/errors';
import type { BacktestData, StrategyCache } from '../run-backtest';
import { loadSweepData, runSweepJob } from './sweep-run';
import type { FromWorker, SweepJob, SweepRunResult, SweepSetup } from './sweep-types';

/** Runs sweep jobs on worker threads that load the data once and stay up for every batch (walk-forward folds). */
export interface SweepPool {
  /**
   * Runs the jobs (spread over the workers, each takes the next when free); results in the order of
   * `jobs`. Several calls may be in flight at once: their runs share one queue, oldest first.
   */
  run(jobs: readonly SweepJob[], onResult?: (r: SweepRunResult, done: number, total: number) => void): Promise<SweepRunResult[]>;
  close(): Promise<void>;
  readonly workers: number;
}

/**
 * `workers` threads (default: one per core, so a sweep uses every core), or 0 to run in this thread
 * (tests, debugging). Workers run the compiled code (dist/src/backtest/sweep/sweep-worker.js).
 * A worker that cannot load the data fails the pool. Results do not depend on the number of
 * workers or their timing: every run is independent and deterministic.
 */
export async function openSweepPool(setup: SweepSetup, workers = availableParallelism()): Promise<SweepPool> {
  if (workers <= 0) return inThread(setup);
  const file = path.join(__dirname, 'sweep-worker.js');
  if (!existsSync(file)) {
    throw new BacktestInputError(`sweep workers need the compiled code (${file}); run "npm run build" and use dist/src/main.js, or --workers 0`, { field: 'workers' });
  }
  const threads = await Promise.all(Array.from({ length: workers }, () => startWorker(file, setup)));
  // One queue of runs in front of the threads, so several callers may run batches at once (the queue
  // worker runs one batch per chunk it holds); a free thread takes the oldest waiting run.
  const waiting: Task[] = [];
  const idle = [...threads];
  let broken: Error | undefined;
  const dispatch = (): void => {
    while (idle.length > 0 && waiting.length > 0) {
      const t = idle.shift() as Thread;
      const task = waiting.shift() as Task;
      t.run(task.job).then((r) => {
        idle.push(t);
        task.resolve(r);
        dispatch();
      }, (err: Error) => {
        // A dead thread fails the pool, as before: every waiting run is refused, none is left hanging.
        broken ??= err;
        task.reject(err);
        for (const w of waiting.splice(0)) w.reject(err);
      });
    }
  };
  return {
    workers,
    run: (jobs, onResult) => {
      if (broken !== undefined) return Promise.reject(broken);
      let done = 0;
      const runs = jobs.map((job) => new Promise<SweepRunResult>((resolve, reject) => {
        waiting.push({ job, resolve, reject });
      }).then((r) => {
        done++;
        onResult?.(r, done, jobs.length);
        return r;
      }));
      dispatch();
      return Promise.all(runs);
    },
    close: async () => {
      await Promise.all(threads.map((t) => t.stop()));
    },
  };
}

interface Task {
  readonly job: SweepJob;
  resolve(r: SweepRunResult): void;
  reject(e: Error): void;
}

interface Thread {
  run(job: SweepJob): Promise<SweepRunResult>;
  stop(): Promise<void>;
}

function startWorker(file: string, setup: SweepSetup): Promise<Thread> {
  const worker = new Worker(file, { workerData: setup });
  let pending: { resolve: (r: SweepRunResult) => void; reject: (e: Error) => void } | undefined;
  let failure: Error | undefined;
  const fail = (err: Error): void => {
    failure = err;
    pending?.reject(err);
    pending = undefined;
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new BacktestInputError(`sweep worker exited (code ${code})`, { field: 'workers' })));
  return new Promise((resolve, reject) => {
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'ready') {
        resolve({
          run: (job) => new Promise((res, rej) => {
            if (failure !== undefined) {
              rej(failure);
              return;
            }
            pending = { resolve: res, reject: rej };
            worker.postMessage({ type: 'job', job });
          }),
          stop: async () => {
            worker.removeAllListeners('exit');
            worker.postMessage({ type: 'stop' });
            await new Promise((r) => worker.once('exit', r));
          },
        });
      } else if (m.type === 'result') {
        const p = pending;
        pending = undefined;
        p?.resolve(m.result);
      } else {
        const err = new BacktestInputError(`sweep worker failed: ${m.error}`, { field: 'data' });
        reject(err);
        fail(err);
        void worker.terminate();
      }
    });
  });
}

async function inThread(setup: SweepSetup): Promise<SweepPool> {
  const data: BacktestData = await loadSweepData(setup);
  const cache: StrategyCache = new Map();
  return {
    workers: 0,
    run: async (jobs, onResult) => {
      const out: SweepRunResult[] = [];
      for (const job of jobs) {
        out.push(await runSweepJob(setup, data, job, cache));
        onResult?.(out[out.length - 1] as SweepRunResult, out.length, jobs.length);
      }
      return out;
    },
    close: async () => undefined,
  };
}
