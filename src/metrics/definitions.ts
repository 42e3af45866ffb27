import { INTERVALS } from '../domain/candle';
import { GUEST_ISOLATION_LEVELS } from '../domain/guest-isolation';
import { ORDER_STATUSES } from '../domain/order-state';
import { ENDPOINTS, type EndpointId } from '../exchange/wire/endpoints';
import { LIMIT_IDS } from '../limiter/limits';
import { TRADING_STATES, type TradingState } from '../trading-state/trading-state';

/**
 * Every tradebot metric as data: name, type, help and label names. registry.ts builds the typed
 * prom-client objects from this table; the dashboard/alert tests and docs/operations.md read it.
 * Names carry the `tradebot_` prefix and their unit (`_seconds`, `_total`, `_timestamp_seconds`).
 */
export type MetricKind = 'counter' | 'gauge' | 'histogram';

export interface MetricDef<K extends MetricKind = MetricKind, L extends string = string> {
  readonly kind: K;
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly buckets?: readonly number[];
}

const counter = <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): MetricDef<'counter', L> =>
  ({ kind: 'counter', name, help, labelNames });
const gauge = <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): MetricDef<'gauge', L> =>
  ({ kind: 'gauge', name, help, labelNames });
const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: readonly number[]): MetricDef<'histogram', L> =>
  ({ kind: 'histogram', name, help, labelNames, buckets });

// Exchange latency spans a fast ping (10 ms) to a timed-out call (timeoutMs, 10 s by default).
const REQUEST_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
// Most limiter waits are zero; a saturated 10 s window can make one wait seconds.
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// Strategies have a time budget of a few hundred ms (strategies.timeBudgetMs).
const STRATEGY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export const METRIC_DEFS = {
  exchangeRequests: counter('tradebot_exchange_requests_total', 'Exchange HTTP requests by endpoint and outcome.', ['api_endpoint', 'outcome']),
  exchangeRequestDuration: histogram('tradebot_exchange_request_duration_seconds', 'Exchange HTTP request latency, limiter wait excluded.', ['api_endpoint'], REQUEST_BUCKETS),
  rateLimited: counter('tradebot_exchange_rate_limited_total', 'HTTP 429 answers (rate limit) by endpoint.', ['api_endpoint']),
  nonceRejections: counter('tradebot_exchange_nonce_rejections_total', 'Requests refused for an invalid nonce (clock skew or nonce reuse) by endpoint.', ['api_endpoint']),
  clockOffset: gauge('tradebot_exchange_clock_offset_seconds', 'Exchange server clock minus the local clock at the last measurement; beyond +-60 s it is not followed and trading is refused.'),
  limiterWait: histogram('tradebot_limiter_wait_seconds', 'Time a request waited for a rate-limit token, by limit.', ['limit'], WAIT_BUCKETS),
  limiterAvailableTokens: gauge('tradebot_limiter_available_tokens', 'Tokens left in the shared bucket at the last take, by limit.', ['limit']),
  orderTransitions: counter('tradebot_order_transitions_total', 'Order state transitions applied, by from and to status.', ['from', 'to']),
  intents: counter('tradebot_intents_total', 'Strategy intents by result; denied ones name the risk rule (rule="none" when accepted).', ['strategy', 'result', 'rule']),
  fills: counter('tradebot_fills_total', 'Fills of our orders seen in the journal (a partial fill counts once per increase), by strategy, market and side.', ['strategy', 'market', 'side']),
  // Guardrails (src/risk/guardrails/, docs/risk.md): scope is `account`, a strategy, or strategy|market for a cooldown per market.
  riskGuardActive: gauge('tradebot_risk_guard_active', 'Guardrails in force (1) by guard (account_drawdown, strategy_drawdown, cooldown) and scope; 0 once lifted.', ['guard', 'scope']),
  riskGuardTrips: counter('tradebot_risk_guard_trips_total', 'Guardrails that tripped, by guard and scope.', ['guard', 'scope']),
  riskEquity: gauge('tradebot_risk_equity', 'Equity as the guardrails mark it at each settled candle: realised plus marked-to-market PnL in the quote currency, by scope (account or strategy).', ['scope']),
  riskDrawdown: gauge('tradebot_risk_drawdown', 'Drawdown from the peak (the largest over the scope\'s drawdown rules) in the quote currency, by scope.', ['scope']),
  riskBudgetAvailable: gauge('tradebot_risk_budget_available', 'Money a strategy may still commit under its budget (allocated + realised - committed), quote currency, at each settled candle of a market in its money.', ['strategy']),
  riskBudgetAllocated: gauge('tradebot_risk_budget_allocated', 'Money a strategy\'s budget gives it (its share of the capital, or its amount), quote currency, at each settled candle.', ['strategy']),
  realizedPnl: gauge('tradebot_realized_pnl', 'Realised PnL in the quote currency from the portfolio (average cost, fees included; the journal\'s fills read at start-up included), by strategy and market. Display only.', ['strategy', 'market']),
  exposure: gauge('tradebot_exposure_quote', 'Position from the portfolio (our fills, the journal\'s read at start-up included) times the last close, in the quote currency, by strategy and market. Display only.', ['strategy', 'market']),
  strategyErrors: counter('tradebot_strategy_errors_total', 'Strategy calls that threw.', ['strategy']),
  strategyOverruns: counter('tradebot_strategy_overruns_total', 'Strategy calls that exceeded their time budget.', ['strategy']),
  strategyPaused: gauge('tradebot_strategy_paused', '1 while a strategy is paused after repeated failures, else 0.', ['strategy']),
  strategyLogCapped: counter('tradebot_strategy_log_capped_total', 'Strategy log lines dropped over the rate cap (cap rate) or cut to the size cap (cap size): a guest cannot flood the daemon\'s log.', ['strategy', 'cap']),
  guestIsolationInfo: gauge('tradebot_guest_isolation_info', 'Always 1; level = how strategy guests are walled off in this process (docs/security.md): thread, permission, permission-net or namespaces.', ['level']),
  strategyVersionInfo: gauge('tradebot_strategy_version_info', '1 per running version of a strategy (version: content hash of its module sources); role live trades, role shadow is only compared.', ['strategy', 'version', 'role']),
  strategyShadowCandles: counter('tradebot_strategy_shadow_candles_total', 'Candles on which a shadow version was compared with the live one.', ['strategy']),
  strategyShadowDivergences: counter('tradebot_strategy_shadow_divergences_total', 'Intents on which the shadow and the live version differed, by divergence (only_live, only_shadow, different price or amount).', ['strategy', 'divergence']),
  strategyShadowErrors: counter('tradebot_strategy_shadow_errors_total', 'Calls of a shadow version that failed (threw, invalid intents, crashed); counted like a live one\'s, never trading.', ['strategy']),
  strategyShadowOverruns: counter('tradebot_strategy_shadow_overruns_total', 'Calls of a shadow version that exceeded their time budget.', ['strategy']),
  strategyVersionChanges: counter('tradebot_strategy_version_changes_total', 'Reloads, refusals, promotions and rollbacks of strategy versions, by action.', ['strategy', 'action']),
  consoleRequests: counter('tradebot_console_requests_total', 'Requests to the operator\'s console API, by route (its path template) and HTTP status.', ['route', 'status']),
  consoleAuthFailures: counter('tradebot_console_auth_failures_total', 'Console requests refused for their token: missing, invalid, forbidden (a viewer acting) or blocked (too many failures from the address).', ['reason']),
  strategyDuration: histogram('tradebot_strategy_duration_seconds', 'Time a strategy took to handle a closed candle.', ['strategy'], STRATEGY_BUCKETS),
  candleLastClose: gauge('tradebot_candle_last_close_timestamp_seconds', 'Close time of the last closed candle received, on the market clock (paper replays history: it is in the past).', ['market', 'interval']),
  candleLag: gauge('tradebot_candle_lag_seconds', 'Market-clock now minus the close time of the last closed candle received (computed at scrape).', ['market', 'interval']),
  candleIntervalSeconds: gauge('tradebot_candle_interval_seconds', 'Length of the candle interval, so alerts can compare the lag with it.', ['market', 'interval']),
  pollLastSuccess: gauge('tradebot_poll_last_success_timestamp_seconds', 'Wall-clock time of the last successful run of a periodic task.', ['task']),
  pollInterval: gauge('tradebot_poll_interval_seconds', 'Period of a periodic task in wall-clock seconds (market periods divided by the paper speed).', ['task']),
  pollFailures: counter('tradebot_poll_failures_total', 'Failed runs of a periodic task.', ['task']),
  balance: gauge('tradebot_balance', 'Trade-account balance per currency (kind = available | freeze), for display only.', ['currency', 'kind']),
  openOrders: gauge('tradebot_open_orders', 'Orders not in a final state, per strategy and market.', ['strategy', 'market']),
  clientOrderIdIgnored: counter('tradebot_client_order_id_ignored_total', 'Orders the exchange created without echoing our client order id (wrong exchange.dialect?): each was canceled by its exchange id and trading halted.'),
  orderIdentityAmbiguous: counter('tradebot_order_identity_ambiguous_total', 'OCOs whose create answer was lost and whose venue order could not be told apart by fingerprint (several matches, or one owned by another journal record): trading halted.'),
  reconciliationDiscrepancies: counter('tradebot_reconciliation_discrepancies_total', 'Real differences between the order journal and the exchange, by kind.', ['kind']),
  reconciliationUpdates: counter('tradebot_reconciliation_updates_total', 'Journal entries the reconciliation brought up to date (fills, triggers, settled answers, adopted own orders), by kind.', ['kind']),
  reconciliationLastRun: gauge('tradebot_reconciliation_last_success_timestamp_seconds', 'Wall-clock time of the last completed reconciliation.'),
  leaseOwned: gauge('tradebot_lease_owned', '1 while this process holds the lease of a strategy on a market, per account (deployments meet in one Prometheus).', ['account', 'strategy', 'market']),
  redisUp: gauge('tradebot_redis_up', '1 while the last Redis command succeeded, 0 after a failure (only with Redis: see tradebot_store_info).'),
  redisFailovers: counter('tradebot_redis_failovers_total', 'Times a different Redis primary answered after the connection was lost (change = failover: another address; restart: the same address, another server run).', ['change']),
  redisWithoutPrimary: histogram('tradebot_redis_without_primary_seconds', 'Time from a lost Redis connection to the next primary answering (nothing is sent meanwhile).', [], REQUEST_BUCKETS),
  storeInfo: gauge('tradebot_store_info', 'Always 1; backend = redis | memory (paper without Redis), account = the store account.', ['backend', 'account']),
  ready: gauge('tradebot_ready', 'Readiness check results at scrape time, 1 = passing (the /readyz checks).', ['check']),
  tradingState: gauge('tradebot_trading_state', 'Trading state, one-hot: 1 for the current state.', ['state']),
  killSwitchLastRefresh: gauge('tradebot_kill_switch_last_refresh_timestamp_seconds', 'Wall-clock time the kill-switch timer of a market was last set.', ['market']),
  killSwitchTimeout: gauge('tradebot_kill_switch_timeout_seconds', 'Kill-switch timeout of a market in wall-clock seconds (market seconds divided by the paper speed).', ['market']),
  killSwitchRemaining: gauge('tradebot_kill_switch_remaining_seconds', 'Wall-clock seconds left before the exchange cancels the market\'s open orders unless re-armed (computed at scrape from the last successful refresh).', ['market']),
  killSwitchArmed: gauge('tradebot_kill_switch_armed', '1 while the daemon keeps re-arming the kill-switch timer of a market, 0 once it stopped (unhealthy: the exchange cancels at expiry).', ['market']),
  driftMatched: gauge('tradebot_drift_matched', 'Orders placed and filled identically live and in the replay, in the last drift check (docs/drift.md).', ['strategy']),
  driftDifferences: gauge('tradebot_drift_differences', 'Differences between live and the replay in the last drift check, by kind (only_live, only_replay, different) and cause.', ['strategy', 'difference', 'cause']),
  driftPnlDifference: gauge('tradebot_drift_pnl_difference', 'Final equity live minus replay over the last drift check\'s window, in the quote currency.', ['strategy']),
  driftUnexplained: gauge('tradebot_drift_unexplained', 'Unexplained differences in the last drift check.'),
  driftUnexplainedAllowed: gauge('tradebot_drift_unexplained_allowed', 'Unexplained differences a drift check tolerates (drift.maxUnexplained).'),
  driftChecks: counter('tradebot_drift_checks_total', 'Drift checks run by the daemon, by verdict (ok, drift, error).', ['verdict']),
  driftLastCheck: gauge('tradebot_drift_last_check_timestamp_seconds', 'Wall-clock time the last drift check finished with a report.'),
  driftCheckCpu: gauge('tradebot_drift_check_cpu_seconds', 'CPU time (user + system) of the last drift check\'s child process.'),
  streamConnected: gauge('tradebot_stream_connected', '1 while the WebSocket connection of a stream is open, else 0 (stream = account | market:<MARKET>:<interval>).', ['stream']),
  streamHealthy: gauge('tradebot_stream_healthy', '1 while a stream is subscribed, resynced and not silent (its concern uses it); 0 = its concern is on REST polling.', ['stream']),
  streamMessages: counter('tradebot_stream_messages_total', 'Pushes received on a stream, by channel method.', ['stream', 'method']),
  streamInvalid: counter('tradebot_stream_invalid_messages_total', 'Stream frames or pushes that failed validation (counted and ignored).', ['stream']),
  streamReconnects: counter('tradebot_stream_reconnects_total', 'Reconnects scheduled after a stream connection closed, failed or went silent.', ['stream']),
  streamResyncs: counter('tradebot_stream_resyncs_total', 'Completed query-then-subscribe resyncs after a (re)connect.', ['stream']),
  streamStaleFallbacks: counter('tradebot_stream_stale_fallbacks_total', 'Times a healthy stream went silent past the watchdog and its concern fell back to REST polling.', ['stream']),
  // Account-stream pushes that claimed a journal record but disagreed with it (issue #29).
  streamPushMismatches: counter('tradebot_stream_push_mismatches_total', 'Account-stream order pushes not applied because they disagreed with the journal record they claimed (by field); the record was settled over REST instead.', ['field']),
  // Notifications (src/notify/, docs/notifications.md): labels name the channel, never its URL.
  notificationsSent: counter('tradebot_notifications_sent_total', 'Notifications a receiver accepted (2xx), by channel and event type.', ['channel', 'type']),
  notificationsFailed: counter('tradebot_notifications_failed_total', 'Notifications given up on (retries spent, refused with a 4xx, or cut by shutdown), by channel, event type and the last reason.', ['channel', 'type', 'reason']),
  notificationsRetried: counter('tradebot_notifications_retried_total', 'Notification attempts retried after a 5xx, a 429, a network error or a timeout, by channel and event type.', ['channel', 'type']),
  notificationsDropped: counter('tradebot_notifications_dropped_total', 'Notifications not sent: queue full (oldest dropped), over the rate limit (told as one "N more suppressed" message) or still queued at shutdown.', ['channel', 'type', 'reason']),
  notificationsDeduplicated: counter('tradebot_notifications_deduplicated_total', 'Notifications skipped because another replica (or this one) already claimed the event for the channel in Redis.', ['channel', 'type']),
  // Trailing stops (src/execution/trailing/, docs/trailing-stops.md): one block, kept apart.
  trailingMoves: counter('tradebot_risk_trailing_moves_total', 'Trailing-stop legs moved (the resting stop cancelled and replaced one step closer to the price), by strategy and market.', ['strategy', 'market']),
  trailingEnded: counter('tradebot_risk_trailing_ended_total', 'Trailing stops that ended, by strategy, market and why (filled, cancelled, denied, rejected, other).', ['strategy', 'market', 'reason']),
  buildInfo: gauge('tradebot_build_info', 'Always 1; labels carry the version and Node.js version.', ['version', 'node_version']),
} as const;

export type MetricKey = keyof typeof METRIC_DEFS;

/** The names of every tradebot-specific metric (default process metrics are listed by the registry). */
export const METRIC_NAMES: readonly string[] = Object.freeze(Object.values(METRIC_DEFS).map((d) => d.name));

/** Prefix of every metric, the default process metrics included. */
export const METRIC_PREFIX = 'tradebot_';

// ---- label values -----------------------------------------------------------------------------

/** Outcome of one exchange request; see exchange-outcome.ts for the mapping from errors. */
export const EXCHANGE_OUTCOMES = ['ok', 'rejected', 'rate_limited', 'nonce_rejected', 'timeout', 'unavailable', 'bad_response', 'error'] as const;
export type ExchangeOutcome = (typeof EXCHANGE_OUTCOMES)[number];

export const INTENT_RESULTS = ['accepted', 'denied'] as const;
export type IntentResult = (typeof INTENT_RESULTS)[number];

export { TRADING_STATES };
export type TradingStateLabel = TradingState;

export const BALANCE_KINDS = ['available', 'freeze'] as const;

/** Real disagreements: a resting journal order the exchange does not know, an exchange order nobody journaled. */
export const DISCREPANCY_KINDS = ['missing_at_exchange', 'unknown_at_exchange'] as const;
export type DiscrepancyKind = (typeof DISCREPANCY_KINDS)[number];

/**
 * The reconciliation doing its normal job, not a disagreement: `status` (a fill, trigger or cancel
 * found at the exchange: fills reach the journal this way), `settled` (a lost answer resolved),
 * `not_found` (an order whose request never arrived, closed as rejected), `adopted` (an order this
 * deployment minted, journaled again from the exchange after Redis lost it).
 */
export const RECONCILE_UPDATE_KINDS = ['status', 'settled', 'not_found', 'adopted'] as const;
export type ReconcileUpdateKind = (typeof RECONCILE_UPDATE_KINDS)[number];

/** Mirrors src/drift/drift-types.ts (metrics do not depend on drift/). */
export const DRIFT_DIFFERENCES = ['only_live', 'only_replay', 'different'] as const;
export const DRIFT_CAUSE_LABELS = ['daemon_down', 'denied_live', 'latency', 'fill_model', 'data', 'unexplained'] as const;
export const DRIFT_VERDICTS = ['ok', 'drift', 'error'] as const;

export const STORE_BACKENDS = ['redis', 'memory'] as const;
export const ORDER_SIDES = ['buy', 'sell'] as const;
export const READINESS_CHECKS = ['redis', 'exchange', 'reconciled'] as const;

/** Mirrors the fields of src/execution/reconciliation/report-agreement.ts plus the order id (metrics do not depend on execution/). */
export const PUSH_MISMATCH_FIELDS = ['orderId', 'market', 'side', 'kind', 'amount', 'price', 'activationPrice'] as const;
export type PushMismatchField = (typeof PUSH_MISMATCH_FIELDS)[number];

/**
 * Labels a metric must never use: Prometheus sets `job` and `instance` on every target (ours would be
 * renamed `exported_job`), a ServiceMonitor adds `namespace`, `service`, `pod`, `container` and
 * `endpoint` (overwriting ours), `le` and `quantile` belong to histograms and summaries, and
 * `prometheus`/`prometheus_replica`/`cluster` are common external labels.
 */
export const RESERVED_LABELS: readonly string[] = [
  'job', 'instance', 'namespace', 'service', 'pod', 'container', 'endpoint', 'node', 'le', 'quantile',
  'prometheus', 'prometheus_replica', 'cluster',
];

/**
 * Where each label's values come from. Every label is bounded: either a fixed list, or a set the
 * operator configures (markets, strategies) or the code names (risk rules, periodic tasks). Nothing
 * per-order (ids, prices) is ever a label: that would create a series per order.
 */
/** tradebot_redis_failovers_total's `change` (store/redis-primary-watch.ts). */
export const REDIS_PRIMARY_CHANGES = ['failover', 'restart'] as const;

/** tradebot_notifications_failed_total's `reason` (src/notify/notice.ts). */
export const NOTIFICATION_FAILURE_REASONS = ['timeout', 'network', 'server_error', 'rate_limited', 'refused', 'shutdown'] as const;
/** tradebot_notifications_dropped_total's `reason`. */
export const NOTIFICATION_DROP_REASONS = ['queue_full', 'rate_limited', 'shutdown'] as const;
/** The `type` of notification metrics: the notified event types and the coalesced "N more suppressed" message. */
export const NOTIFICATION_TYPES = ['fill', 'rejection', 'trading_state', 'strategy_paused', 'guardrail', 'version_changed', 'drift', 'daily_summary', 'notifications_suppressed'] as const;

export const LABEL_DOMAINS: Readonly<Record<string, readonly string[] | string>> = {
  api_endpoint: Object.keys(ENDPOINTS) as EndpointId[],
  outcome: EXCHANGE_OUTCOMES,
  limit: LIMIT_IDS,
  from: ORDER_STATUSES,
  to: ORDER_STATUSES,
  interval: INTERVALS,
  result: INTENT_RESULTS,
  state: TRADING_STATES,
  kind: [...BALANCE_KINDS, ...DISCREPANCY_KINDS, ...RECONCILE_UPDATE_KINDS],
  side: ORDER_SIDES,
  backend: STORE_BACKENDS,
  level: GUEST_ISOLATION_LEVELS,
  cap: ['rate', 'size'],
  check: READINESS_CHECKS,
  field: PUSH_MISMATCH_FIELDS,
  difference: DRIFT_DIFFERENCES,
  cause: DRIFT_CAUSE_LABELS,
  verdict: DRIFT_VERDICTS,
  change: REDIS_PRIMARY_CHANGES,
  channel: 'notification channel names (notifications.channels[].name)',
  type: NOTIFICATION_TYPES,
  // notifications' failures and drops; the console's refused authentications
  reason: [...new Set([...NOTIFICATION_FAILURE_REASONS, ...NOTIFICATION_DROP_REASONS, 'missing', 'invalid', 'forbidden', 'blocked'])],
  account: 'the store account (12 hex digits of SHA-256 of the API key; one value per deployment)',
  strategy: 'configured strategies (strategies.enabled[].name)',
  guard: ['account_drawdown', 'strategy_drawdown', 'cooldown'],
  scope: 'account, a configured strategy, or strategy|market (a cooldown per market)',
  market: 'configured markets',
  rule: 'risk rule names in src/risk (plus "none")',
  task: 'periodic task names (klines:<market>:<interval>, balances, kill-switch, reconcile, leases, trading-state, redis-health, limiter-tokens, drift-check)',
  currency: 'currencies of the configured markets',
  version: 'package version (one value per process); in tradebot_strategy_version_info a strategy version (12 hex digits)',
  role: ['live', 'shadow'],
  divergence: ['only_live', 'only_shadow', 'different'],
  action: ['reload', 'refused', 'promote', 'rollback', 'auto-promote', 'replica-promote'],
  node_version: 'Node.js version (one value per process)',
  route: 'the console API\'s path templates (src/console/routes.ts) and `other`',
  status: 'HTTP status codes the console answers',
  stream: 'WebSocket streams: account, and market:<market>:<interval> per configured candle subscription',
  method: 'push methods of the subscribed channels (ordersPending_update, deals_update, candles_update, lastprice_update); others are not counted',
};

/**
 * The alerting decision of every metric, checked by test/unit/deploy/dashboard.test.ts against
 * deploy/prometheus/alerts.yml: the alerts that read it, or `none` with the reason. A new metric
 * does not compile until it has an entry here, and the test fails if the entry is wrong.
 */
export const ALERT_DECISIONS: Readonly<Record<MetricKey, readonly string[] | { readonly none: string }>> = {
  exchangeRequests: ['TradebotExchangeErrorRate'],
  exchangeRequestDuration: { none: 'latency alone is not actionable; timeouts show in TradebotExchangeErrorRate' },
  rateLimited: ['TradebotRateLimited'],
  nonceRejections: ['TradebotNonceRejected'],
  clockOffset: ['TradebotClockOffsetTooLarge'],
  limiterWait: { none: 'waiting for tokens is the limiter working; dashboard only' },
  limiterAvailableTokens: { none: 'dashboard only; 429s alert through TradebotRateLimited' },
  orderTransitions: { none: 'dashboard only: order flow' },
  intents: { none: 'denials are decisions, not faults; dashboard only' },
  fills: { none: 'trading activity; dashboard only' },
  realizedPnl: { none: 'the daily loss limit acts on it in the daemon; dashboard only' },
  riskGuardActive: ['TradebotRiskGuardActive'],
  riskGuardTrips: { none: 'a trip sets tradebot_risk_guard_active, which alerts while it lasts' },
  riskEquity: { none: 'the drawdown stops act on it in the daemon; dashboard only' },
  riskDrawdown: { none: 'the drawdown stops act on it; a trip alerts through TradebotRiskGuardActive' },
  riskBudgetAvailable: { none: 'the budget denies entries itself; dashboard only' },
  riskBudgetAllocated: { none: 'describes the budget; dashboard only' },
  exposure: { none: 'the risk limits act before orders are sent; dashboard only' },
  strategyErrors: ['TradebotStrategyFailing'],
  strategyOverruns: ['TradebotStrategyOverruns'],
  strategyPaused: ['TradebotStrategyPaused'],
  strategyVersionInfo: { none: 'describes which versions run; dashboard only' },
  strategyShadowCandles: { none: 'a shadow never trades; dashboard only' },
  strategyShadowDivergences: { none: 'divergence is what a shadow run is for; the author reads it before promoting' },
  strategyShadowErrors: { none: 'a failing shadow never trades; it is refused by not promoting it (dashboard)' },
  strategyShadowOverruns: { none: 'a shadow never trades; dashboard only' },
  strategyVersionChanges: { none: 'operator actions; each is logged; dashboard only' },
  strategyDuration: { none: 'overruns alert through TradebotStrategyOverruns' },
  consoleRequests: { none: 'traffic; dashboard only' },
  consoleAuthFailures: ['TradebotConsoleAuthFailures'],
  candleLastClose: { none: 'market-clock time; staleness alerts read tradebot_candle_lag_seconds' },
  candleLag: ['TradebotCandlesStale'],
  candleIntervalSeconds: ['TradebotCandlesStale'],
  pollLastSuccess: ['TradebotPollStale'],
  pollInterval: ['TradebotPollStale'],
  pollFailures: { none: 'a failed run is retried; TradebotPollStale fires when it keeps failing' },
  balance: { none: 'display only' },
  openOrders: { none: 'dashboard only; risk limits cap it' },
  clientOrderIdIgnored: ['TradebotClientOrderIdIgnored'],
  orderIdentityAmbiguous: ['TradebotOrderIdentityAmbiguous'],
  reconciliationDiscrepancies: ['TradebotReconciliationDiscrepancy'],
  reconciliationUpdates: ['TradebotOwnOrdersAdopted'],
  reconciliationLastRun: ['TradebotReconciliationStale'],
  leaseOwned: ['TradebotLeaseUnowned', 'TradebotLeaseSplit'],
  trailingMoves: { none: 'a trailing stop doing its job; dashboard only' },
  trailingEnded: { none: 'each end is logged with its reason; a denied move shows as reason="denied" on the dashboard' },
  redisUp: ['TradebotRedisDown'],
  redisFailovers: { none: 'a failover that completes is Redis doing its job; the outage itself alerts through TradebotRedisDown' },
  redisWithoutPrimary: { none: 'TradebotRedisDown fires while it lasts; the histogram measures the drill (docs/redis.md)' },
  storeInfo: { none: 'describes the deployment; dashboard only' },
  streamConnected: { none: 'a dead stream falls back to REST polling at once (docs/streams.md); dashboard only' },
  streamHealthy: { none: 'a stream off or silent means REST polling, the pre-stream behaviour; dashboard only' },
  streamMessages: { none: 'traffic; dashboard only' },
  streamInvalid: { none: 'invalid pushes are ignored and REST stays the truth; dashboard only' },
  streamReconnects: { none: 'reconnects are the supervisor working; REST covers the gap; dashboard only' },
  streamResyncs: { none: 'one per (re)connect; dashboard only' },
  streamStaleFallbacks: { none: 'REST takes over at once; dashboard only' },
  streamPushMismatches: { none: 'a disagreeing push is never applied and REST settles the record; dashboard only (an order REST cannot place alerts through TradebotOrderIdentityAmbiguous)' },
  ready: ['TradebotNotReady'],
  tradingState: ['TradebotTradingHalted', 'TradebotTradingReducing'],
  killSwitchLastRefresh: { none: 'a timestamp sampled at scrape cannot watch a paper-speed timer; the alert reads tradebot_kill_switch_remaining_seconds' },
  killSwitchTimeout: ['TradebotKillSwitchNotRefreshed'],
  killSwitchRemaining: ['TradebotKillSwitchNotRefreshed'],
  killSwitchArmed: { none: 'TradebotKillSwitchNotRefreshed fires on the age once re-arming stopped' },
  driftMatched: { none: 'dashboard only: the drift row' },
  driftDifferences: { none: 'explained differences are expected (restarts, pauses, fills); the unexplained ones alert through TradebotDriftUnexplained' },
  driftPnlDifference: { none: 'its sign and size depend on the strategy; dashboard only' },
  driftUnexplained: ['TradebotDriftUnexplained'],
  driftUnexplainedAllowed: ['TradebotDriftUnexplained'],
  driftChecks: { none: 'a failed check is retried at the next interval and logged; dashboard only' },
  driftLastCheck: { none: 'dashboard only' },
  driftCheckCpu: { none: 'cost of the check, dashboard only (it runs in a child process at low priority)' },
  buildInfo: ['TradebotAbsent'],
  guestIsolationInfo: { none: 'the daemon refuses to start below strategies.minGuestIsolation; status and the dashboard show the level' },
  notificationsSent: { none: 'delivery working; dashboard only' },
  notificationsFailed: { none: 'each give-up is a warn line naming the channel and reason; an alert would travel to the same receivers that are failing; dashboard only' },
  notificationsRetried: { none: 'a retry is the channel working around a flaky receiver; dashboard only' },
  notificationsDropped: { none: 'a burst over the rate limit is told as one suppressed message, a full queue is one warn line per burst; dashboard only' },
  notificationsDeduplicated: { none: 'replicas agreeing on who sends; dashboard only' },
  strategyLogCapped: { none: 'a noisy strategy hurts no order: the dashboard and one warn line per burst say what was dropped' },
};
