// The layer rules of docs ARCHITECTURE ("domain/ does no I/O, dependencies point inward, app/ only
// wires, no import cycles"), checked by `npm run lint:deps` as part of `npm test`.
//
// LAYERS lists the folders of src/ from the ground up. A folder may import its own files and the
// folders BELOW it, never one above: an arrow that runs back up the layers is an error. Peers on
// one row may not import each other either (they have no reason to; add a row when one needs it).

/** @type {string[][]} lowest first */
const LAYERS = [
  ['domain', 'core'], // plain types and rules, the clock port: no I/O
  ['portfolio'], // positions, average entry, realised/unrealised PnL, fed by fills: no I/O
  ['store'], // Redis: connection, keys, Lua scripts, the order journal and leases
  ['limiter'], // the rate-limiter port, its Redis and in-memory adapters
  ['trading-state'], // the operator's trading state: the states and what they allow (pure), their stores, the control applying them
  ['risk'], // pre-trade checks: pure, no I/O
  ['exchange'], // the ExchangeClient port, its HTTP adapter, the nonce port and adapters
  ['candle-files'], // the candle CSV format: rows, columns, reading and writing files
  ['market-data'], // candle clocks, pollers, the market stream
  ['jobs'], // the job scheduler: cron or market-clock ticks for candles, reconcile, leases, health, drift, kill-switch
  ['config'], // the validated, frozen config
  ['log'], // the pino factory
  ['metrics'], // the Registry, /metrics and /healthz
  ['strategy'], // the strategy contract, host, guests, candle flow
  ['execution'], // journal/, reconciliation/, orders/ (risk gate -> prepare -> journal -> send -> settle), guards/, kernel/
  ['strategy-control'], // reload / promote / rollback of strategy versions, their control store
  ['simulator'], // the simulated exchange (paper, backtest, tests)
  ['backtest'], // replay, reports, sweeps
  ['drift'], // the deployment's record (daemon side) and its check against its own backtest
  ['operator'], // the operator's actions (pause, reload, cancel...) through the store, waited for and audited: one path for the CLI and the console
  ['notify', 'console'], // notifications to webhooks and Telegram; the operator's HTTP API and web page
  ['app'], // the composition root: wires, starts and stops
  ['cli'], // commands
];

const folder = (name) => `^src/${name}/`;

function layerRules() {
  const rules = [];
  LAYERS.forEach((row, i) => {
    const above = LAYERS.slice(i + 1).flat();
    for (const name of row) {
      const forbidden = [...above, ...row.filter((peer) => peer !== name)];
      rules.push({
        name: `layer-${name}`,
        comment: `src/${name}/ may import only the layers below it (${LAYERS.slice(0, i).flat().join(', ') || 'none'}), never ${forbidden.join(', ')}`,
        severity: 'error',
        from: { path: folder(name) },
        to: { path: [...forbidden.map(folder), '^src/main\\.ts$'] },
      });
    }
  });
  return rules;
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Files that import each other in a loop (type-only imports count too).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-does-no-io',
      comment: 'domain/ holds plain types and rules: it imports nothing but domain/ and decimal.js.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', '^node_modules/decimal\\.js/'] },
    },
    {
      name: 'risk-does-no-io',
      comment: 'risk/ checks intents against limits and state it is handed: no Redis, no network, no files. From trading-state/ it reads only the pure states (trading-state.ts), never their stores.',
      severity: 'error',
      from: { path: '^src/risk/' },
      to: { path: ['^src/store/', '^src/trading-state/(?!trading-state\\.ts$)', '^node_modules/ioredis/', '^node_modules/ky/'] },
    },
    {
      name: 'io-free-builtins',
      comment: 'domain/, core/, portfolio/, risk/ and the trading states (trading-state/trading-state.ts) read no files and open no sockets.',
      severity: 'error',
      from: { path: ['^src/domain/', '^src/core/', '^src/portfolio/', '^src/risk/', '^src/trading-state/trading-state\\.ts$'] },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|dgram|tls|worker_threads)$' },
    },
    {
      name: 'src-never-imports-tests-or-benches',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: ['^test/', '^bench/'] },
    },
    {
      name: 'strategies-use-the-sdk-only',
      comment: 'Drop-in strategies import the published strategy SDK (tradebot/strategy) and their own helpers, nothing inside src/.',
      severity: 'error',
      from: { path: '^strategies/' },
      to: { path: '^src/', pathNot: '^src/strategy/strategy\\.ts$' },
    },
    ...layerRules(),
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing (a moved file, a typo).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^dist/', '^node_modules/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
