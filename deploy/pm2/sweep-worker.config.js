// pm2 process file for distributed sweep workers (docs/distributed-sweeps.md), apart from the
// daemon's ecosystem.config.js so `pm2 start ecosystem.config.js` starts the daemon alone. Build
// first (`npm run build`), then, on each machine that should run sweep chunks, from the checkout:
//   TRADEBOT_QUEUE_REDIS_URL_FILE=/etc/tradebot/queue-redis-url pm2 start deploy/pm2/sweep-worker.config.js
//   pm2 logs tradebot-sweep-worker | npx pino-pretty
// The URL may hold a password: give it as a file (mode 600) through TRADEBOT_QUEUE_REDIS_URL_FILE,
// not as TRADEBOT_QUEUE_REDIS_URL (pm2 keeps an app's environment in `pm2 jlist` and dump.pm2), and
// never write it here.
'use strict';

const path = require('node:path');

// `tradebot worker --drain-seconds`: on SIGINT/SIGTERM running chunks get this long to finish.
const WORKER_DRAIN_SECONDS = 30;

module.exports = {
  apps: [
    {
      // `tradebot worker`: runs chunks of `backtest --sweep ... --queue` from the queue Redis, as
      // many at once as the machine has cores. More machines, more workers.
      name: 'tradebot-sweep-worker',
      script: 'dist/src/main.js',
      args: ['worker', '--drain-seconds', String(WORKER_DRAIN_SECONDS)],
      cwd: path.resolve(__dirname, '../..'), // the checkout's root, wherever pm2 is started from
      interpreter: 'node',
      exec_mode: 'fork',
      instances: 1,
      // pm2 sends SIGINT, then SIGKILL after kill_timeout: longer than the drain, so a chunk that
      // finishes within it is recorded; one still running is retried by another worker anyway.
      kill_timeout: (WORKER_DRAIN_SECONDS + 5) * 1000,
      autorestart: true,
      exp_backoff_restart_delay: 1_000,
      min_uptime: '30s',
      max_restarts: 10,
      // A missing or bad TRADEBOT_QUEUE_REDIS_URL exits 1 at once; pm2's back-off then retries it.
      // deploy/k8s/sweep-worker-deployment.yaml: measured peak 263 MiB with two threads on a month
      // of 1-minute candles; the same limit as the pod's.
      max_memory_restart: '640M',
      merge_logs: true,
      time: false, // pino stamps every line
      env: { NODE_ENV: 'production' },
    },
  ],
};
