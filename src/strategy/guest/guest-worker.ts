import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { ManualClock } from '../../core/clock';
import type { Interval } from '../../domain/candle';
import type { Balances, MarketInfo } from '../../domain/market';
import type { OpenOrderView } from '../../risk/open-order-view';
import type { OrderEvent, PositionView } from '../order-feedback';
import type { StrategyConfig } from '../prepare-strategy';
import { StrategyHost } from '../strategy-host';
import type { StrategyLogger } from '../strategy';
import { findStrategy, loadStrategies, loadStrategyFile } from '../strategy-loader';
import { strategyFrame } from '../error-frame';
import type { CandleItem, CandlesMessage, DescribeMessage, FromGuest, ItemResult, ToGuest } from './protocol';
import { tieLifeToDaemon } from './guest-life';
import { candleFromWire, fromWire, plainContext, toWire, type Wire } from './wire';

/**
 * A guest: ONE strategy in a child process (or worker thread) with an empty environment and a heap
 * limit (see guest-channel.ts, guest-host.ts); or a throwaway one describing a strategy directory. It runs the same StrategyHost as a backtest, with no budget and no pausing of
 * its own (the parent enforces the deadline by terminating this thread, and counts failures).
 * Only plain data comes and goes (wire.ts).
 */
interface View {
  balances: Balances;
  openOrders: readonly OpenOrderView[];
  marketInfo: MarketInfo | undefined;
  position: PositionView;
  events: readonly OrderEvent[];
}

/** The parent: a worker thread's port, or a child process's IPC channel (guest-channel.ts). */
interface Port {
  postMessage(message: FromGuest): void;
  on(event: 'message', listener: (message: ToGuest) => void): void;
}
const port: Port = parentPort ?? processPort();

function processPort(): Port {
  if (process.send === undefined) throw new Error('guest-worker runs in a worker thread or a child process with IPC');
  tieLifeToDaemon();
  return {
    postMessage: (m) => { process.send?.(m); },
    on: (_event, listener) => { process.on('message', (m) => listener(m as ToGuest)); },
  };
}

let host: StrategyHost | undefined;
const clock = new ManualClock(0);
let view: View | undefined;
let failure: string | undefined;
let failureAt: string | undefined;
/** True while a warm-up batch runs, so its ctx.log lines are marked as such by the parent. */
let warming = false;

function send(message: FromGuest): void {
  port.postMessage(message);
}

function logger(market: string): StrategyLogger {
  const line = (level: 'debug' | 'info' | 'warn' | 'error') => (obj: unknown, msg?: string): void => {
    let data: Wire;
    try {
      data = toWire(obj);
    } catch {
      data = String(obj);
    }
    send({ type: 'log', level, market, obj: data, msg: typeof msg === 'string' ? msg : undefined, ...(warming ? { warm: true } : {}) });
  };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

port.on('message', (message: ToGuest) => {
  if (message.type === 'describe') {
    send(describe(message));
    return;
  }
  if (message.type === 'init') {
    try {
      const { interval, ...config } = fromWire(message.config) as StrategyConfig & { interval?: Interval };
      const found = typeof message.file === 'string' ? loadStrategyFile(message.file, message.name, config) : findStrategy(message.dir, message.name, config);
      const strategy = interval === undefined || interval === found.strategy.interval ? found.strategy : { ...found.strategy, interval };
      host = new StrategyHost({
        strategies: [strategy], clock, timeBudgetMs: Number.POSITIVE_INFINITY, maxConsecutiveFailures: Number.POSITIVE_INFINITY,
        logger: { ...logger(''), child: (b) => logger(String(b['market'] ?? '')) },
        // The daemon logs the failure (one line): here only what it needs, as plain data. The thrown
        // value's own message (the daemon names the strategy, market and reason itself) and where
        // in the strategy's files it was thrown.
        logFailures: false,
        events: { onError: (e) => { failure = causeMessage(e.error); failureAt = strategyFrame((e.error.cause as { stack?: unknown } | undefined)?.stack, message.dir); } },
        view: {
          balances: () => view?.balances ?? {},
          openOrders: () => view?.openOrders ?? [],
          marketInfo: () => view?.marketInfo,
          position: () => view!.position,
          events: () => view?.events ?? [],
        },
      });
      send({ type: 'ready' });
    } catch (err) {
      send({ type: 'load_failed', reason: err instanceof Error ? err.message : String(err) });
    }
    return;
  }
  void onCandles(message);
});

/** Runs a batch's candles one after the other (candle order), then answers once with every result. */
async function onCandles(message: CandlesMessage): Promise<void> {
  const results: ItemResult[] = [];
  for (const item of message.items) results.push(await runOne(item, message));
  send({ type: 'result', id: message.id, results });
}

async function runOne(item: CandleItem, message: CandlesMessage): Promise<ItemResult> {
  if (host === undefined) return { intents: [], failure: 'strategy not loaded', elapsedMs: 0 };
  const started = performance.now();
  clock.setMs(message.nowMs);
  view = fromWire(item.view) as View;
  failure = undefined;
  failureAt = undefined;
  // A re-warm's whole batch, or one start-up warm-up candle among live ones.
  const warm = message.warm || item.warm === true;
  warming = warm;
  let stamped: Awaited<ReturnType<StrategyHost['handleCandle']>>;
  try {
    stamped = await host.handleCandle(item.market, message.interval as Interval, candleFromWire(item.candle));
  } finally {
    warming = false;
  }
  let intents: Wire = [];
  if (!warm && stamped.length > 0) {
    try {
      intents = toWire(stamped.map((s) => s.intent));
    } catch (err) {
      failure = `invalid intents: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  return { intents, failure, at: failureAt, elapsedMs: performance.now() - started };
}

/** What the strategy threw, said once: its message (or the value), else the host's own text (an overrun). */
function causeMessage(error: Error): string {
  const cause: unknown = error.cause;
  // Duck-typed: an Error of the strategy's realm is not `instanceof` this one's.
  const message = (cause as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string') return message;
  if (cause !== undefined) {
    try {
      return typeof cause === 'string' ? cause : JSON.stringify(cause) ?? String(cause);
    } catch {
      return String(cause);
    }
  }
  return error.message;
}

/**
 * Loads and validates every module of the directory HERE (never in the daemon: a module's top-level
 * code is guest code) and answers with plain metadata and the load errors' messages and context.
 */
function describe(message: DescribeMessage): FromGuest {
  try {
    const config = fromWire(message.config) as Record<string, StrategyConfig>;
    const result = loadStrategies(message.dir, { config, only: message.file });
    return {
      type: 'described',
      strategies: result.strategies.map((s) => ({ name: s.name, file: s.file, markets: [...s.markets], interval: s.interval, warmup: s.warmup, window: s.window, params: plainParams(s.params), description: typeof s.definition.description === 'string' ? s.definition.description.slice(0, 2000) : undefined, sources: (result.sources.get(s.name) ?? []).map((f) => f.file) })),
      errors: result.errors.map((e) => ({ message: e.message, context: plainContext(e.context) })),
      disabled: [...result.disabled],
      declared: [...result.declared],
    };
  } catch (err) {
    return { type: 'describe_failed', reason: err instanceof Error ? err.message : String(err) };
  }
}

function plainParams(params: unknown): Wire {
  try {
    return toWire(params);
  } catch {
    return String(params);
  }
}
