import { INTERVALS } from '../domain/candle';
import { ORDER_STATUSES } from '../domain/order-state';
import { ENDPOINTS, type EndpointId } from '../exchange/http/endpoints';
import { LIMIT_IDS } from '../limiter/limits';

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
  exchangeRequests: counter('tradebot_exchange_requests_total', 'Exchange HTTP requests by endpoint and outcome.', ['endpoint', 'outcome']),
  exchangeRequestDuration: histogram('tradebot_exchange_request_duration_seconds', 'Exchange HTTP request latency, limiter wait excluded.', ['endpoint'], REQUEST_BUCKETS),
  rateLimited: counter('tradebot_exchange_rate_limited_total', 'HTTP 429 answers (rate limit) by endpoint.', ['endpoint']),
  nonceRejections: counter('tradebot_exchange_nonce_rejections_total', 'Requests refused for an invalid nonce (clock skew or nonce reuse) by endpoint.', ['endpoint']),
  limiterWait: histogram('tradebot_limiter_wait_seconds', 'Time a request waited for a rate-limit token, by limit.', ['limit'], WAIT_BUCKETS),
  limiterAvailableTokens: gauge('tradebot_limiter_available_tokens', 'Tokens left in the shared bucket at the last take, by limit.', ['limit']),
  orderTransitions: counter('tradebot_order_transitions_total', 'Order state transitions applied, by from and to status.', ['from', 'to']),
  intents: counter('tradebot_intents_total', 'Strategy intents by result; denied ones name the risk rule (rule="none" when accepted).', ['strategy', 'result', 'rule']),
  strategyErrors: counter('tradebot_strategy_errors_total', 'Strategy calls that threw.', ['strategy']),
  strategyOverruns: counter('tradebot_strategy_overruns_total', 'Strategy calls that exceeded their time budget.', ['strategy']),
  strategyDuration: histogram('tradebot_strategy_duration_seconds', 'Time a strategy took to handle a closed candle.', ['strategy'], STRATEGY_BUCKETS),
  candleLastClose: gauge('tradebot_candle_last_close_timestamp_seconds', 'Close time of the last closed candle received.', ['market', 'interval']),
  candleLag: gauge('tradebot_candle_lag_seconds', 'Now minus the close time of the last closed candle received (computed at scrape).', ['market', 'interval']),
  candleIntervalSeconds: gauge('tradebot_candle_interval_seconds', 'Length of the candle interval, so alerts can compare the lag with it.', ['market', 'interval']),
  pollLastSuccess: gauge('tradebot_poll_last_success_timestamp_seconds', 'Time of the last successful run of a polling job.', ['job']),
  pollFailures: counter('tradebot_poll_failures_total', 'Failed runs of a polling job.', ['job']),
  balance: gauge('tradebot_balance', 'Trade-account balance per currency (kind = available | freeze), for display only.', ['currency', 'kind']),
  openOrders: gauge('tradebot_open_orders', 'Orders not in a final state, per strategy and market.', ['strategy', 'market']),
  reconciliationDiscrepancies: counter('tradebot_reconciliation_discrepancies_total', 'Differences found between the order store and the exchange, by kind.', ['kind']),
  reconciliationLastRun: gauge('tradebot_reconciliation_last_success_timestamp_seconds', 'Time of the last completed reconciliation.'),
  leaseOwned: gauge('tradebot_lease_owned', '1 while this process holds the lease of a strategy on a market.', ['strategy', 'market']),
  redisUp: gauge('tradebot_redis_up', '1 while the last Redis command succeeded, 0 after a failure.'),
  tradingState: gauge('tradebot_trading_state', 'Trading state, one-hot: 1 for the current state.', ['state']),
  killSwitchLastRefresh: gauge('tradebot_kill_switch_last_refresh_timestamp_seconds', 'Time the kill-switch timer of a market was last set.', ['market']),
  killSwitchTimeout: gauge('tradebot_kill_switch_timeout_seconds', 'Kill-switch timeout configured for a market.', ['market']),
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

/** Mirrors TradingState in src/risk/trading-state.ts; kept here so metrics do not depend on risk/. */
export const TRADING_STATES = ['active', 'halted', 'reducing'] as const;
export type TradingStateLabel = (typeof TRADING_STATES)[number];

export const BALANCE_KINDS = ['available', 'freeze'] as const;

export const DISCREPANCY_KINDS = [
  'missing_at_exchange', 'unknown_at_exchange', 'status_mismatch', 'fill_mismatch',
] as const;
export type DiscrepancyKind = (typeof DISCREPANCY_KINDS)[number];

/**
 * Where each label's values come from. Every label is bounded: either a fixed list, or a set the
 * operator configures (markets, strategies) or the code names (risk rules, polling jobs). Nothing
 * per-order (ids, prices) is ever a label: that would create a series per order.
 */
export const LABEL_DOMAINS: Readonly<Record<string, readonly string[] | string>> = {
  endpoint: Object.keys(ENDPOINTS) as EndpointId[],
  outcome: EXCHANGE_OUTCOMES,
  limit: LIMIT_IDS,
  from: ORDER_STATUSES,
  to: ORDER_STATUSES,
  interval: INTERVALS,
  result: INTENT_RESULTS,
  state: TRADING_STATES,
  kind: [...BALANCE_KINDS, ...DISCREPANCY_KINDS],
  strategy: 'configured strategies (strategies.enabled[].name)',
  market: 'configured markets',
  rule: 'risk rule names in src/risk (plus "none")',
  job: 'polling job names (candles, balances, orders, kill_switch, reconcile, time)',
  currency: 'currencies of the configured markets',
  version: 'package version (one value per process)',
  node_version: 'Node.js version (one value per process)',
};
