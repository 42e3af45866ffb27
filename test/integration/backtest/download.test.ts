import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SystemClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { HttpExchangeClient } from '../../../src/exchange/http/client';
import { InMemoryNonceSource } from '../../../src/exchange/nonce/in-memory-nonce-source';
import { InMemoryRateLimiter } from '../../../src/limiter/in-memory-limiter';
import { loadCsvRows, type CsvCandleRow } from '../../../src/candle-files/csv-candles';
import { downloadCandles } from '../../../src/backtest/download/download-candles';
import { startSimulatedExchange, type SimulatedExchange } from '../../../src/simulator/start-simulated-exchange';

// Two days of real BTC/USDT 1m candles with the source's 2-hour outage (2021-09-29 07:00-08:59).
const FIXTURE = 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv';
const GAP_FROM = 1632898800;
const CLI = join(__dirname, '../../../dist/src/main.js');
const run = promisify(execFile);

let rows: CsvCandleRow[];
let sim: SimulatedExchange;
let client: HttpExchangeClient;
let dir: string;
let requests = 0;

beforeAll(async () => {
  rows = await loadCsvRows(FIXTURE);
  // The market clock stands after the data: every candle is history, served by the kline endpoint.
  sim = await startSimulatedExchange({ markets: [{ name: 'BTC_USDT', rows }], speed: 0, start: rows.at(-1)!.time + 3600 });
  const clock = new SystemClock();
  client = new HttpExchangeClient({
    baseUrl: sim.url, primaryRegion: 'global', nonceSource: new InMemoryNonceSource({ clock }), limiter: new InMemoryRateLimiter({ clock }),
    clock, timeoutMs: 5000, onRequest: () => { requests++; },
  });
  dir = mkdtempSync(join(tmpdir(), 'tb-download-'));
});

afterAll(async () => {
  await sim.close();
});

/** The file's rows must equal the source's rows (decimals compared as numbers: the venue formats prices to 2 places). */
async function expectSameRows(file: string, expected: readonly CsvCandleRow[]): Promise<void> {
  const got = await loadCsvRows(file);
  expect(got.map((r) => r.time)).toEqual(expected.map((r) => r.time));
  for (let i = 0; i < got.length; i++) {
    const a = got[i]!;
    const b = expected[i]!;
    for (const k of ['open', 'high', 'low', 'close', 'volume'] as const) {
      if (!new Decimal(a[k]).equals(b[k])) throw new Error(`row ${a.time} ${k}: ${a[k]} != ${b[k]}`);
    }
  }
}

test('pages of at most 1440, stops after one page, resumes after the last row, reports the outage as one gap', async () => {
  const out = join(dir, 'btc.csv');
  const from = rows[0]!.time;
  const to = rows.at(-1)!.time; // exclusive: the last data candle confirms the one before it
  const first = await downloadCandles({ client, market: 'BTC_USDT', interval: '1m', from, to, out, maxPages: 1 });
  expect(first).toMatchObject({ interrupted: true, pages: 1, resumedAfter: undefined });
  expect(first.written).toBe(1439); // the page's last row is held back until a later candle shows it closed
  await expectSameRows(out, rows.slice(0, 1439));

  requests = 0;
  const second = await downloadCandles({ client, market: 'BTC_USDT', interval: '1m', from, to, out });
  expect(second.interrupted).toBe(false);
  expect(second.resumedAfter).toBe(rows[1438]!.time);
  expect(second.duplicates).toBe(0);
  expect(second.gaps).toEqual([{ from: GAP_FROM, to: GAP_FROM + 119 * 60, missing: 120 }]);
  expect(requests).toBe(second.pages + 1); // plus one re-read of the candle held across the gap
  await expectSameRows(out, rows.slice(0, -1));
  expect(readFileSync(out, 'utf8').endsWith('\n')).toBe(true);

  // Nothing left to do: a third run writes nothing.
  const third = await downloadCandles({ client, market: 'BTC_USDT', interval: '1m', from, to, out });
  expect(third).toMatchObject({ written: 0, pages: 0 });
});

test('the newest candle is not written while nothing shows it closed', async () => {
  const out = join(dir, 'tail.csv');
  const last = rows.at(-1)!.time;
  const s = await downloadCandles({ client, market: 'BTC_USDT', interval: '1m', from: last - 600, to: last + 60, out });
  expect(s.unconfirmed).toBe(last);
  expect(s.written).toBe(10);
});

test('1h candles aggregated by the venue; the outage hours are a gap', async () => {
  const out = join(dir, 'btc-1h.csv');
  const s = await downloadCandles({ client, market: 'BTC_USDT', interval: '1h', from: 1632808800, to: 1632981600, out });
  expect(s.gaps).toEqual([{ from: GAP_FROM, to: GAP_FROM + 3600, missing: 2 }]);
  const got = await loadCsvRows(out);
  expect(got[0]!.time).toBe(1632808800);
  expect(got.length).toBe(48 - 2);
});

test('the built CLI: plain progress lines when not a TTY, --max-pages then resume, summary with the gap', async () => {
  if (!existsSync(CLI)) throw new Error('run "npm run build" first: this test runs dist/src/main.js');
  const out = join(dir, 'cli.csv');
  const args = ['download', '--market', 'BTC_USDT', '--interval', '1m', '--from', String(rows[0]!.time), '--to', String(rows.at(-1)!.time), '--out', out, '--base-url', sim.url];
  const a = await run('node', [CLI, ...args, '--max-pages', '1']);
  expect(a.stderr).toMatch(/^page 1: 1439\/\d+ candles/m);
  expect(a.stdout).toMatch(/stopped after 1 pages, 1439 candles written/);
  const b = await run('node', [CLI, ...args]);
  expect(b.stdout).toMatch(/resumed after 2021-09-29T05:57:00Z/);
  expect(b.stdout).toMatch(/gaps: 1 \(120 missing candles\)\n {2}2021-09-29T07:00:00Z \.\. 2021-09-29T08:59:00Z \(120\)/);
  expect(b.stdout).toMatch(/duplicates dropped: 0/);
  await expectSameRows(out, rows.slice(0, -1));
}, 15_000);
