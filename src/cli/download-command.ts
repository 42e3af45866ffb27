import type { Command } from 'commander';
import { SystemClock } from '../core/clock';
import { MARKET_NAME } from '../domain/market';
import { TradebotError } from '../domain/errors';
import { BacktestInputError } from '../domain/errors';
import { HttpExchangeClient } from '../exchange/http/client';
import { InMemoryNonceSource } from '../exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../limiter/in-memory-limiter';
import { downloadCandles, type DownloadSummary } from '../backtest/download/download-candles';
import { createProgress } from '../backtest/download/progress';
import { parseIntervalOption, parseTime } from '../backtest/options';
import { DEFAULT_BASE_URL } from './api-command';

interface DownloadCliOptions {
  market: string;
  interval: string;
  from: string;
  to: string;
  out: string;
  baseUrl?: string;
  maxPages?: string;
  timeout: string;
}

/**
 * `tradebot download`: historical candles from the kline endpoint into the CSV format of the test
 * data (time = open time in Unix seconds, decimals as text). Pages of 1440 under the rate limiter,
 * resumes an existing file, reports gaps and duplicates at the end.
 */
export function registerDownloadCommand(program: Command): void {
  program
    .command('download')
    .description('download closed candles into a CSV file (resumes an existing file)')
    .requiredOption('--market <market>', 'market, e.g. BTC_USDT')
    .requiredOption('--interval <interval>', 'candle interval, e.g. 1m, 1h')
    .requiredOption('--from <time>', 'first candle (Unix seconds or ISO date, UTC)')
    .requiredOption('--to <time>', 'end, exclusive (Unix seconds or ISO date, UTC)')
    .requiredOption('--out <file>', 'CSV file to write or continue')
    .option('--base-url <url>', `server (default TRADEBOT_BASE_URL or ${DEFAULT_BASE_URL})`)
    .option('--timeout <ms>', 'request timeout in ms', '10000')
    .option('--max-pages <n>', 'stop after n pages (resume later by running the same command)')
    .action(async (opts: DownloadCliOptions) => {
      try {
        const summary = await runDownloadCommand(opts, process.env);
        process.stdout.write(formatDownloadSummary(summary));
      } catch (err) {
        process.stderr.write(`${err instanceof TradebotError ? `${err.code}: ` : ''}${err instanceof Error ? err.message : String(err)}\n`);
        process.exitCode = 1;
      }
    });
}

async function runDownloadCommand(opts: DownloadCliOptions, env: NodeJS.ProcessEnv): Promise<DownloadSummary> {
  if (!MARKET_NAME.test(opts.market)) throw new BacktestInputError(`--market must look like BTC_USDT, got ${opts.market}`, { field: 'market' });
  const interval = parseIntervalOption(opts.interval, '--interval');
  const maxPages = opts.maxPages === undefined ? undefined : Number(opts.maxPages);
  if (maxPages !== undefined && (!Number.isInteger(maxPages) || maxPages < 1)) throw new BacktestInputError('--max-pages must be a positive integer', { field: 'max-pages' });
  const timeoutMs = Number(opts.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new BacktestInputError('--timeout must be a positive integer', { field: 'timeout' });
  const clock = new SystemClock();
  const client = new HttpExchangeClient({
    baseUrl: opts.baseUrl ?? env['TRADEBOT_BASE_URL'] ?? DEFAULT_BASE_URL, primaryRegion: 'global',
    nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }), clock, timeoutMs,
  });
  return downloadCandles({
    client, market: opts.market, interval, from: parseTime(opts.from, '--from'), to: parseTime(opts.to, '--to'), out: opts.out,
    progress: createProgress(process.stderr), maxPages,
  });
}

export function formatDownloadSummary(s: DownloadSummary): string {
  const iso = (t: number) => new Date(t * 1000).toISOString().replace('.000Z', 'Z');
  const lines = [
    `${s.interrupted ? 'stopped after' : 'done:'} ${s.pages} pages, ${s.written} candles written${s.resumedAfter === undefined ? '' : ` (resumed after ${iso(s.resumedAfter)})`}`,
    `gaps: ${s.gaps.length}${s.gaps.length === 0 ? '' : ` (${s.gaps.reduce((n, g) => n + g.missing, 0)} missing candles)`}`,
    ...s.gaps.slice(0, 50).map((g) => `  ${iso(g.from)} .. ${iso(g.to)} (${g.missing})`),
    ...(s.gaps.length > 50 ? [`  ... ${s.gaps.length - 50} more`] : []),
    `duplicates dropped: ${s.duplicates}`,
  ];
  if (s.repairedBytes > 0) lines.push(`repaired: cut ${s.repairedBytes} bytes of a torn last line`);
  if (s.unconfirmed !== undefined) lines.push(`not written (not yet closed): ${iso(s.unconfirmed)}`);
  return `${lines.join('\n')}\n`;
}
