import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import type { FrozenConfig } from '../config/load';
import { ConfigError } from '../domain/errors';
import { loadCsvRows, type CsvCandleRow } from '../candle-files/csv-candles';
import { parseFillModel, type FillModel, type FillModelText } from '../domain/fill-model';
import { startSimulatedExchange, type SimulatedExchange } from '../simulator/start-simulated-exchange';
import { PAPER_API_KEY } from './paper-key';

export interface PaperExchange {
  readonly sim: SimulatedExchange;
  readonly credentials: { readonly apiKey: string; readonly apiSecret: string };
  /** Open time of the first recorded candle (Unix seconds) over all markets. */
  readonly firstCandleTime: number;
  /**
   * Moves the (still frozen) market clock to where trading starts, unless `paper.start` fixed it:
   * the first candle plus `warmupSeconds`, so strategies have their history. Called once the
   * strategies are loaded (their warm-up is known), before the warm-up reads that history.
   */
  skipWarmup(warmupSeconds: number): void;
  /** Lets the market clock run at `paper.speed` (when the scheduler starts). */
  run(): void;
}

/**
 * Starts the simulated exchange inside the daemon: a random loopback port, the configured candle
 * files and balances, and a fresh paper secret. The market clock starts FROZEN (speed 0) so the
 * reconciliation and the warm-up see a still market; `go()` starts it.
 */
export async function startPaperExchange(config: FrozenConfig, baseDir: string): Promise<PaperExchange> {
  const paper = config.paper;
  if (paper?.markets === undefined || paper.balances === undefined) throw new ConfigError('paper: the embedded simulator needs paper.markets and paper.balances', { path: 'paper' });
  const markets: { name: string; rows: readonly CsvCandleRow[] }[] = [];
  for (const [i, m] of paper.markets.entries()) {
    const file = path.resolve(baseDir, m.data);
    let rows: readonly CsvCandleRow[];
    try {
      rows = await loadCsvRows(file);
    } catch (error) {
      throw new ConfigError(`paper.markets.${i}.data: candle file ${file} cannot be read: ${(error as Error).message}`, { path: `paper.markets.${i}.data`, file });
    }
    if (rows.length === 0) throw new ConfigError(`paper.markets.${i}.data: candle file ${file} holds no candles`, { path: `paper.markets.${i}.data` });
    markets.push({ name: m.market, rows });
  }
  const firstCandleTime = Math.min(...markets.map((m) => m.rows[0]?.time ?? Infinity));
  const credentials = { apiKey: PAPER_API_KEY, apiSecret: randomBytes(32).toString('hex') };
  const sim = await startSimulatedExchange({
    host: '127.0.0.1',
    port: 0,
    apiKey: credentials.apiKey,
    apiSecret: credentials.apiSecret,
    balances: { ...paper.balances },
    collateralBalances: { ...paper.collateral },
    fillModel: paperFillModel(paper.fill),
    markets: markets.map((m) => ({ name: m.name, rows: m.rows })),
    start: paper.start ?? firstCandleTime,
    speed: 0,
    seed: paper.seed,
    // The daemon's own dialect: a paper run fails wherever live would on the same wire.
    dialect: config.exchange.dialect,
  });
  return {
    sim,
    credentials,
    firstCandleTime,
    skipWarmup(warmupSeconds) {
      if (paper.start === undefined) sim.advanceTo(firstCandleTime + warmupSeconds);
    },
    run() {
      sim.setSpeed(paper.speed);
    },
  };
}

/** `paper.fill` (validated by the config schema) as the engine's FillModel. */
function paperFillModel(fill: FillModelText): FillModel {
  const parsed = parseFillModel(fill);
  if (!parsed.ok) throw new ConfigError(`paper.fill.${parsed.field}: ${parsed.reason}`, { path: `paper.fill.${parsed.field}` });
  return parsed.model;
}
