import { Decimal } from '../../../src/domain/decimal';
import { BacktestReplay, type ReplayResult } from '../../../src/backtest/replay/backtest-replay';
import { loadNamedStrategy } from '../../../src/backtest/run-backtest';
import { loadCsvRows, rowToCandle } from '../../../src/candle-files/csv-candles';
import type { OrderLogEntry } from '../../../src/backtest/replay/order-log';
import type { SimEngine } from '../../../src/simulator/engine/sim-engine';
import type { SimOrder } from '../../../src/simulator/engine/types';
import { simMarketInfo } from '../../../src/simulator/sim-markets';
import type { StrategyLogger } from '../../../src/strategy/strategy';
import { sharedDataFile } from '../../helpers/shared-data';

/** The recorded candles both trailing-stop tests run on (a steady climb on 2021-10-15: many moves). */
export const TRAIL_CSV = sharedDataFile('btc_usdt-1m-binance-2021-09.csv');
export const TRAIL_STRATEGIES = 'test/fixtures/trailing';

export interface TrailerRun {
  readonly result: ReplayResult;
  readonly engine: SimEngine;
  /** What the strategy saw resting on each candle (its `trailer sees` log lines). */
  readonly seen: readonly { readonly candleTime: number; readonly open: readonly string[]; readonly events: readonly string[] }[];
  /** The trailing stop's legs as the order log has them (leg 0 from the intent, the others from moves). */
  readonly legs: readonly OrderLogEntry[];
}

/** The fixture strategy `trailer` backtested over [from, to) of the recorded candles. */
export async function backtestTrailer(o: { from: number; to: number; params: Record<string, unknown> }): Promise<TrailerRun> {
  const rows = (await loadCsvRows(TRAIL_CSV)).map(rowToCandle).filter((c) => c.time >= o.from && c.time < o.to);
  const strategy = loadNamedStrategy({ strategy: 'trailer', balances: {}, strategiesDir: TRAIL_STRATEGIES, params: o.params }, ['BTC_USDT']);
  const seen: { candleTime: number; open: string[]; events: string[] }[] = [];
  const logger: StrategyLogger & { child(): StrategyLogger } = {
    debug: () => undefined, warn: () => undefined, error: () => undefined,
    info: (obj, msg) => { if (msg === 'trailer sees') seen.push(obj as { candleTime: number; open: string[]; events: string[] }); },
    child: () => logger,
  };
  const replay = new BacktestReplay({
    strategies: [strategy], markets: [{ info: simMarketInfo('BTC_USDT'), candles: rows }], dataInterval: '1m',
    balances: { USDT: new Decimal('100000'), BTC: new Decimal('1') }, log: () => logger,
  });
  const result = await replay.run();
  const engine = (replay as unknown as { engine: SimEngine }).engine;
  return { result, engine, seen, legs: result.orders.filter((e) => e.kind === 'trailing_stop' && e.outcome === 'placed') };
}

/** The venue's orders of the given client order ids, in leg order, and every overlap (two resting at once). */
export function legOverlaps(orders: readonly SimOrder[], legIds: readonly string[]): string[] {
  const byId = new Map(orders.map((x) => [x.clientOrderId, x]));
  const out: string[] = [];
  for (let i = 1; i < legIds.length; i++) {
    const prev = byId.get(legIds[i - 1]!);
    const next = byId.get(legIds[i]!);
    if (prev === undefined || next === undefined) { out.push(`leg ${i - 1} or ${i} not at the venue`); continue; }
    if (prev.finishedAt === undefined || prev.finishedAt > next.createdAt) out.push(`leg ${i - 1} (finished ${prev.finishedAt}) still rested when leg ${i} was created (${next.createdAt})`);
  }
  return out;
}
