import { parentPort, workerData } from 'node:worker_threads';
import type { BacktestData, StrategyCache } from '../run-backtest';
import { loadSweepData, runSweepJob } from './sweep-run';
import type { FromWorker, SweepSetup, ToWorker } from './sweep-types';

/**
 * A sweep worker thread (compiled code: dist/src/backtest/sweep/sweep-worker.js). Loads the data
 * once, then runs one job per message until told to stop. Runs are independent and deterministic:
 * each builds its own engine, clock, host and risk engine.
 */
const port = parentPort;
if (port !== null) {
  const setup = workerData as SweepSetup;
  const send = (m: FromWorker): void => port.postMessage(m);
  let data: BacktestData | undefined;
  const cache: StrategyCache = new Map();
  loadSweepData(setup).then(
    (d) => {
      data = d;
      send({ type: 'ready' });
    },
    (err: unknown) => send({ type: 'fatal', error: (err as Error).message }),
  );
  port.on('message', (m: ToWorker) => {
    if (m.type === 'stop') {
      port.close();
      return;
    }
    if (data === undefined) return;
    void runSweepJob(setup, data, m.job, cache).then((result) => send({ type: 'result', result }));
  });
}
