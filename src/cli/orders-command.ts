import type { Command } from 'commander';
import { openAccountStore } from '../app/account-store';
import { loadConfig } from '../config/load';
import { Decimal } from '../domain/decimal';
import { ConfigError } from '../domain/errors';
import { isOrderStatus, LIVE_STATUSES } from '../domain/order-state';
import { marketMsOf, wallToMarket } from '../drift/outcomes';
import { RedisDeploymentLog } from '../store/deployment-log';
import type { OrderRecord } from '../store/order-store-port';
import { RedisOrderStore } from '../store/order-store';
import { defaultConfigFile, formatError } from './cli-basics';

interface OrdersOptions {
  config?: string;
  status?: string;
  strategy?: string;
  limit: string;
  json?: boolean;
}

/**
 * `tradebot orders [--status S] [--strategy S] [--limit N] [--json]`: the order journal from Redis,
 * newest first, as a table or JSON. `--status live` selects every non-final status.
 */
export function registerOrdersCommand(program: Command): void {
  program
    .command('orders')
    .description('list the order journal from Redis (newest first)')
    .option('-c, --config <file>', 'config file; default $TRADEBOT_CONFIG or config/paper.yaml')
    .option('--status <status>', 'only this status (pending, submitted, open, filled, ...; "live" = not final)')
    .option('--strategy <name>', 'only this strategy')
    .option('--limit <n>', 'at most n records', '50')
    .option('--json', 'print JSON instead of a table')
    .action(async (opts: OrdersOptions) => {
      try {
        const rows = await listOrders(opts, process.env);
        process.stdout.write(opts.json === true ? `${JSON.stringify(rows.map(withoutHistory), null, 2)}\n` : formatTable(rows));
      } catch (err) {
        process.stderr.write(formatError(err));
        process.exitCode = 1;
      }
    });
}

/**
 * A journal record with its creation in market time: the journal stamps wall time (`createdAtMs`),
 * the rest of the output (logs, candles, drift) uses market time (paper: the simulator's clock).
 * Undefined when no recorded daemon run covers the wall time (its run expired from the deployment log).
 */
export type OrderRow = OrderRecord & { readonly createdMarketMs?: number | undefined };

export async function listOrders(opts: OrdersOptions, env: NodeJS.ProcessEnv): Promise<OrderRow[]> {
  const limit = Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new ConfigError('--limit must be a positive integer', { path: 'limit' });
  const status = opts.status;
  if (status !== undefined && status !== 'live' && !isOrderStatus(status)) throw new ConfigError(`unknown --status ${status}`, { path: 'status' });
  const config = loadConfig(opts.config ?? defaultConfigFile(env), env);
  const store = await openAccountStore(config, env, 'tradebot orders');
  try {
    const journal = new RedisOrderStore({ redis: store.redis, keys: store.keys });
    // Filtering by status reads more than `limit` so the filter still finds `limit` matches.
    const scan = status === undefined ? limit : Math.max(limit * 20, 1000);
    const all = opts.strategy === undefined ? await journal.listAll(scan) : await journal.listByStrategy(opts.strategy, scan);
    const matches = all.filter((r) => status === undefined || (status === 'live' ? LIVE_STATUSES.has(r.status) : r.status === status));
    // The journal's own market time; older records by the runs' marks (both clocks), as the drift check reads them.
    const toMarketMs = wallToMarket(await new RedisDeploymentLog(store.redis, store.keys).runs(0, Number.MAX_SAFE_INTEGER));
    return matches.slice(0, limit).map((r) => {
      // The creation step, unless the bounded history dropped it.
      const created = r.history[0]?.atMs === r.createdAtMs ? r.history[0] : { atMs: r.createdAtMs };
      return { ...r, createdMarketMs: roundMs(marketMsOf(created, toMarketMs)) };
    });
  } finally {
    await store.close();
  }
}

function roundMs(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.round(ms);
}

/** JSON: both clocks, `createdAtMs` (wall) and `createdMarketMs` (market; null when no run covers it). */
function withoutHistory(r: OrderRow): Omit<OrderRow, 'history' | 'createdMarketMs'> & { createdMarketMs: number | null } {
  const { history: _history, ...rest } = r;
  return { ...rest, createdMarketMs: r.createdMarketMs ?? null };
}

const utc = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

/** `canceled` with some of the amount executed reads "canceled, partly filled" (a final partial fill). */
function statusText(r: OrderRecord): string {
  const filled = new Decimal(r.filledAmount);
  if ((r.status === 'canceled' || r.status === 'cancel_pending') && filled.greaterThan(0) && filled.lessThan(r.amount)) {
    return `${r.status}, partly filled`;
  }
  return r.status;
}

/** Average execution price (deal money / deal amount), 8 decimals at most; empty while nothing filled. */
function averagePrice(r: OrderRecord): string {
  const filled = new Decimal(r.filledAmount);
  if (filled.isZero() || new Decimal(r.filledMoney).isZero()) return '';
  return new Decimal(r.filledMoney).dividedBy(filled).toDecimalPlaces(8).toString();
}

// Market time like the logs and candles; a record no run maps says its wall time, marked as such.
const COLUMNS: readonly [string, (r: OrderRow) => string][] = [
  ['created (market, UTC)', (r) => (r.createdMarketMs === undefined ? `${utc(r.createdAtMs)} (wall)` : utc(r.createdMarketMs))],
  ['client order id', (r) => r.clientOrderId],
  ['strategy', (r) => r.strategy],
  ['market', (r) => r.market],
  ['side', (r) => r.side],
  ['kind', (r) => r.kind],
  ['status', statusText],
  ['amount', (r) => r.amount],
  ['filled', (r) => r.filledAmount],
  ['avg price', averagePrice],
  ['fee', (r) => (r.fee === '0' ? '' : r.fee)],
  ['price', (r) => r.price],
  ['activation', (r) => r.activationPrice ?? ''],
  ['order id', (r) => (r.orderId === undefined ? '' : String(r.orderId))],
];

export function formatTable(records: readonly OrderRow[]): string {
  if (records.length === 0) return 'no orders\n';
  const rows = [COLUMNS.map(([h]) => h), ...records.map((r) => COLUMNS.map(([, f]) => f(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return `${rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n')}\n`;
}
