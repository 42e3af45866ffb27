import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { ManualClock } from '../../core/clock';
import type { Interval } from '../../domain/candle';
import type { Balances, MarketInfo } from '../../domain/market';
import type { OpenOrderView } from '../open-order';
import type { OrderEvent, PositionView } from '../order-feedback';
import type { StrategyConfig } from '../prepare-strategy';
import { StrategyHost } from '../strategy-host';
import type { StrategyLogger } from '../strategy';
import { findStrategy } from '../strategy-loader';
import type { CandleItem, CandlesMessage, FromGuest, ItemResult, ToGuest } from './protocol';
import { candleFromWire, fromWire, toWire, type Wire } from './wire';

/**
 * A guest: ONE strategy in a worker thread with an empty environment and a heap limit (see
 * guest-host.ts). It runs the same StrategyHost as a backtest, with no budget and no pausing of
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

const port = parentPort;
if (port === null) throw new Error('guest-worker runs in a worker thread');

let host: StrategyHost | undefined;
const clock = new ManualClock(0);
let view: View | undefined;
let failure: string | undefined;

function send(message: FromGuest): void {
  port!.postMessage(message);
}

function logger(market: string): StrategyLogger {
  const line = (level: 'debug' | 'info' | 'warn' | 'error') => (obj: unknown, msg?: string): void => {
    let data: Wire;
    try {
      data = toWire(obj);
    } catch {
      data = String(obj);
    }
    send({ type: 'log', level, market, obj: data, msg: typeof msg === 'string' ? msg : undefined });
  };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

port.on('message', (message: ToGuest) => {
  if (message.type === 'init') {
    try {
      const { interval, ...config } = fromWire(message.config) as StrategyConfig & { interval?: Interval };
      const found = findStrategy(message.dir, message.name, config);
      const strategy = interval === undefined || interval === found.strategy.interval ? found.strategy : { ...found.strategy, interval };
      host = new StrategyHost({
        strategies: [strategy], clock, timeBudgetMs: Number.POSITIVE_INFINITY, maxConsecutiveFailures: Number.POSITIVE_INFINITY,
        logger: { ...logger(''), child: (b) => logger(String(b['market'] ?? '')) },
        events: { onError: (e) => { failure = e.error.message; } },
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
  const stamped = await host.handleCandle(item.market, message.interval as Interval, candleFromWire(item.candle));
  let intents: Wire = [];
  if (!message.warm && stamped.length > 0) {
    try {
      intents = toWire(stamped.map((s) => s.intent));
    } catch (err) {
      failure = `invalid intents: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  return { intents, failure, elapsedMs: performance.now() - started };
}
