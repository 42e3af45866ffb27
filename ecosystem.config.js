// pm2 process file for tradebot. Build first (`npm run build`), then:
//   pm2 start ecosystem.config.js                        paper trading (config/paper.yaml)
//   TRADEBOT_CONFIG=config/live.yaml pm2 start ecosystem.config.js --env live
//   pm2 logs tradebot | npx pino-pretty                  read the JSON logs
//   pm2 reload tradebot                                  fork mode: graceful stop, then start; returns once 'ready'
// Secrets are never written here, and not given as plain environment variables either (pm2 keeps an
// app's environment in `pm2 jlist`) nor as arguments (`ps`, and `args` in `pm2 jlist`): export
// TRADEBOT_API_KEY_FILE, TRADEBOT_API_SECRET_FILE and TRADEBOT_REDIS_URL_FILE (files of mode 600) in the
// shell that runs `pm2 start`. test/unit/deploy/no-secrets-on-command-lines.test.ts checks this file.
// Distributed sweep workers have their own process file: deploy/pm2/sweep-worker.config.js.
'use strict';

// The config file is chosen when pm2 reads this file, from the shell's TRADEBOT_CONFIG: pm2's
// `--env` switches environment variables only, it cannot change the arguments.
const config = process.env.TRADEBOT_CONFIG || 'config/paper.yaml';

// The daemon's graceful shutdown takes at most shutdown.graceMs (10 s by default), then it exits 1.
// pm2 sends SIGINT on stop/restart and SIGKILL after kill_timeout, so kill_timeout must be longer,
// or an order submission could be cut off between "sent" and "recorded".
const SHUTDOWN_GRACE_MS = 10_000;

module.exports = {
  apps: [
    {
      name: 'tradebot',
      script: 'dist/src/main.js',
      args: ['run', '--config', config],
      cwd: __dirname,
      interpreter: 'node',
      // Fork mode, one process. Cluster mode (`exec_mode: 'cluster', instances: N`) would be safe for
      // trading, because replicas coordinate through Redis leases (one owner per strategy/market)
      // and share the Redis token bucket and nonce key. But cluster workers share one metrics port,
      // so each scrape would hit a random worker: for several replicas prefer separate fork-mode
      // apps with their own TRADEBOT_CONFIG__METRICS__PORT (or `instances` + `increment_var`).
      exec_mode: 'fork',
      instances: 1,

      // Readiness: the daemon calls process.send('ready') once Redis answers, the start-up
      // reconciliation is done and the metrics server listens. `pm2 reload` waits for it before
      // stopping the old process; listen_timeout bounds the wait (reconciliation pages the history).
      wait_ready: true,
      listen_timeout: 60_000,
      kill_timeout: SHUTDOWN_GRACE_MS + 5_000,

      // Restarts: exponential back-off from 1 s (pm2 caps it at 15 s) so an exchange or Redis outage
      // does not turn into a tight crash loop; a run shorter than min_uptime counts towards max_restarts.
      autorestart: true,
      exp_backoff_restart_delay: 1_000,
      min_uptime: '30s',
      max_restarts: 10,
      // Exit 78 (EX_CONFIG) means the config is invalid: restarting cannot help. NOT 0: pm2 reports a
      // death by signal (kill -9, the OOM killer's SIGKILL, V8's SIGABRT) as code 0, so listing 0 left
      // a killed daemon down. A clean exit 0 only follows SIGTERM/SIGINT; stop it with `pm2 stop`.
      stop_exit_codes: [78],
      max_memory_restart: '512M',

      // Logs: pino writes JSON lines to stdout; pm2 stores them under ~/.pm2/logs/tradebot-*.log
      // (install pm2-logrotate). Under `pm2-runtime` (containers) they go to the container's stdout.
      merge_logs: true,
      time: false, // pino already stamps every line
      source_map_support: true,

      env: {
        NODE_ENV: 'development',
        TRADEBOT_CONFIG: config,
      },
      env_paper: {
        NODE_ENV: 'development',
        TRADEBOT_CONFIG: config,
      },
      env_live: {
        NODE_ENV: 'production',
        TRADEBOT_CONFIG: config,
        // TRADEBOT_REDIS_URL_FILE (required in live mode; the URL may hold a password),
        // TRADEBOT_API_KEY_FILE and TRADEBOT_API_SECRET_FILE come from the shell environment, never from this file.
      },
    },
  ],
};
