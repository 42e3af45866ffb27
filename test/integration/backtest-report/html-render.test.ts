import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { analyseBacktest } from '../../../src/backtest/report/metrics';
import { writeReport } from '../../../src/backtest/report/write-report';
import type { BacktestResult } from '../../../src/backtest/report/types';
import { buildEquityCurve } from '../../../src/backtest/report/equity-curve';
import { loadRealRun } from '../../fixtures/backtest/real-run';
import { loadBacktestData, runBacktest } from '../../../src/backtest/run-backtest';
import { Decimal } from '../../../src/domain/decimal';
import { CHROMIUM as CHROMIUM_TOOL, requireTool } from '../../helpers/system-tools';
import { smallCandles, smallFills, smallStartBalances } from '../../fixtures/backtest/small-run';
import { writeDriftReport } from '../../../src/drift/drift-report';
import { DRIFT_CAUSES } from '../../../src/drift/drift-types';
import type { DriftResult } from '../../../src/drift/run-drift';

/** The page's computed style of the first element matching `selector` (no DOM types in this tsconfig: read through globalThis). */
async function computedStyle(page: Page, selector: string, props: readonly string[]): Promise<Record<string, string>> {
  return page.evaluate(([sel, names]) => {
    const g = globalThis as unknown as { document: { querySelector(s: string): unknown }; getComputedStyle(e: unknown): Record<string, string> };
    const style = g.getComputedStyle(g.document.querySelector(sel));
    return Object.fromEntries(names.map((n) => [n, style[n] ?? '']));
  }, [selector, props] as const);
}

/** A drift result of one strategy whose live and replay equity curves are the same points (the case that drew as one line). */
function coincidingDrift(): DriftResult {
  const zero = Object.fromEntries(DRIFT_CAUSES.map((c) => [c, 0])) as Record<(typeof DRIFT_CAUSES)[number], number>;
  const from = Date.UTC(2024, 4, 6, 9, 0) / 1000;
  const curve = Array.from({ length: 240 }, (_, k) => ({ time: from + k * 60, equity: new Decimal(10_000 + Math.round(40 * Math.sin(k / 17) * 100) / 100) }));
  return {
    from, to: from + 240 * 60, downtime: [], counts: { matched: 12, onlyLive: zero, onlyReplay: zero, different: zero }, unexplained: 0, candlesRecorded: 480, corrected: null,
    strategies: [{
      strategy: 'bands', interval: '1m', markets: ['BTC_USDT'], version: 'abc123', params: {}, liveVersions: ['abc123'], versionMatches: true, paramsFrom: 'journal',
      replayFrom: from, liveOrders: 12, replayOrders: 12, matched: 12, differences: [], startBalances: { USDT: new Decimal(10_000) },
      liveEquity: curve, replayEquity: curve.map((p) => ({ ...p })), pnlDifference: new Decimal(0), quoteCurrency: 'USDT',
    }],
  };
}

/*
 * Renders real reports, writes them to a temp dir and opens them in headless Chromium: no console
 * or page errors, no request other than the file itself, both charts drawn, one marker per fill.
 * Chromium missing is a FAILURE with one line saying what to install (the test run installs the
 * Debian package itself when it is root), unless TRADEBOT_SKIP_BROWSER_TESTS=1.
 */
const skip = process.env['TRADEBOT_SKIP_BROWSER_TESTS'] === '1';
const SCREENSHOT_DIR = process.env['TRADEBOT_REPORT_SCREENSHOT_DIR'] ?? tmpdir();

/** playwright wants a path, not a command name. */
function resolveBinary(command: string): string {
  if (command.includes('/')) return command;
  return spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).stdout.trim() || command;
}

(skip ? describe.skip : describe)('backtest HTML report in headless Chromium', () => {
  jest.setTimeout(20_000);
  let browser: Browser;
  let dir: string;
  let result: BacktestResult;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: resolveBinary(requireTool(CHROMIUM_TOOL)),
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    dir = await mkdtemp(join(tmpdir(), 'tradebot-report-'));
    result = analyseBacktest(await loadRealRun());
    await writeReport(dir, result);
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Opens the report and records every console error, page error, dialog and request. */
  async function open(file = 'report.html'): Promise<{ page: Page; problems: string[]; requests: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.setDefaultTimeout(3000); // the page is static: a missing element will not appear later
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (msg) => { if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`); });
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('dialog', (dialog) => { problems.push(`dialog: ${dialog.message()}`); void dialog.dismiss(); });
    page.on('request', (req) => requests.push(req.url()));
    await page.goto(pathToFileURL(join(dir, file)).href, { waitUntil: 'load' });
    return { page, problems, requests };
  }

  test('renders without errors or network requests, both charts drawn, one marker per fill', async () => {
    const { page, problems, requests } = await open();
    try {
      expect(problems).toEqual([]);
      expect(requests).toEqual([pathToFileURL(join(dir, 'report.html')).href]);

      const equityLine = page.locator('#equity-chart path.line:not(.benchmark)');
      expect(await equityLine.count()).toBe(1);
      // Buy and hold on the same candles, drawn under the equity line.
      expect(Number(await page.locator('#equity-chart path.line.benchmark').getAttribute('data-points'))).toBeGreaterThan(100);
      expect(Number(await page.locator('#drawdown-chart path.line').getAttribute('data-points'))).toBeGreaterThan(100);
      expect((await equityLine.getAttribute('d'))?.length).toBeGreaterThan(100);
      expect(Number(await equityLine.getAttribute('data-points'))).toBeGreaterThan(100);
      const equityBox = await page.locator('#equity-chart').boundingBox();
      expect(equityBox?.width).toBeGreaterThan(500);
      expect(equityBox?.height).toBeGreaterThan(100);

      const panels = page.locator('#price-chart svg.price-panel');
      expect(await panels.count()).toBe(2);
      for (const market of ['BTC_USDT', 'ETH_USDT']) {
        const panel = page.locator(`#price-chart svg[data-market="${market}"]`);
        const line = panel.locator('path.line');
        expect((await line.getAttribute('d'))?.length).toBeGreaterThan(100);
        // The source gap (2021-09-29 07:00-08:59) must be drawn as a break: two "M" sub-paths.
        expect((await line.getAttribute('d'))?.match(/M/g)?.length).toBe(2);
        const fills = result.fills.filter((f) => f.market === market);
        expect(await panel.locator('path.marker').count()).toBe(fills.length);
        expect(await panel.locator('path.marker.buy').count()).toBe(fills.filter((f) => f.side === 'buy').length);
        expect(await panel.locator('path.marker.sell').count()).toBe(fills.filter((f) => f.side === 'sell').length);
        expect(await panel.locator('path.marker.exit').count()).toBeGreaterThan(0);
      }
      expect(await page.locator('#price-chart path.marker').count()).toBe(result.fills.length);
      expect(await page.locator('#trades tbody tr').count()).toBe(result.trades.length);
      expect(await page.locator('#summary').innerText()).toContain('Sharpe');

      // The title carries <, &, " and must show literally, not as markup.
      expect(await page.locator('h1').innerText()).toBe('Rhythm test <BTC & ETH> "1m"');
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'tradebot-backtest-report.png'), fullPage: false });
      await page.locator('#price-chart').screenshot({ path: join(SCREENSHOT_DIR, 'tradebot-backtest-price-chart.png') });
    } finally {
      await page.close();
    }
  });

  test('drift.html: both equity curves drawn and told apart where they coincide, a legend naming them, axis titles and tick labels', async () => {
    const drift = coincidingDrift();
    await writeDriftReport(join(dir, 'drift'), drift, 0);
    const end = drift.strategies[0]!.liveEquity.at(-1)!.equity.toFixed(2);
    const { page, problems, requests } = await open('drift/drift.html');
    try {
      expect(problems).toEqual([]);
      expect(requests).toHaveLength(1);
      const chart = page.locator('svg.drift-equity');
      expect(await chart.count()).toBe(1);
      const live = chart.locator('path.line.live');
      const replay = chart.locator('path.line.replay');
      expect(await live.count()).toBe(1);
      expect(await replay.count()).toBe(1);
      expect(Number(await live.getAttribute('data-points'))).toBeGreaterThan(100);
      expect(await replay.getAttribute('d')).toBe(await live.getAttribute('d')); // the same points ...
      // ... still two lines to the eye: other colours, the replay dashed and thinner, drawn over the live one.
      const liveStyle = await computedStyle(page, 'svg.drift-equity path.line.live', ['stroke', 'strokeWidth', 'strokeDasharray']);
      const replayStyle = await computedStyle(page, 'svg.drift-equity path.line.replay', ['stroke', 'strokeWidth', 'strokeDasharray']);
      expect(replayStyle['stroke']).not.toBe(liveStyle['stroke']);
      expect(liveStyle['strokeDasharray']).toBe('none');
      expect(replayStyle['strokeDasharray']).not.toBe('none');
      expect(parseFloat(replayStyle['strokeWidth'] ?? '')).toBeLessThan(parseFloat(liveStyle['strokeWidth'] ?? ''));
      expect(await chart.locator('path.line').evaluateAll((els) => els.map((e) => (e as unknown as { getAttribute(n: string): string }).getAttribute('class')))).toEqual(['line live', 'line replay']);

      const legend = await page.locator('.legend').innerText();
      expect(legend).toContain(`live (the journal's fills), ends at ${end} USDT`);
      expect(legend).toContain(`replay (the backtest of the window), ends at ${end} USDT`);
      expect(await page.locator('.legend svg path.line.live').count()).toBe(1);
      expect(await page.locator('.legend svg path.line.replay').count()).toBe(1);
      expect(await page.locator('p.note').innerText()).toContain('identical');

      expect(await chart.locator('.x-axis .axis-label').textContent()).toBe('market time (UTC)');
      expect(await chart.locator('.y-axis .axis-label').textContent()).toBe('equity (USDT)');
      const xTicks = await chart.locator('.x-axis text.tick').allTextContents();
      const yTicks = await chart.locator('.y-axis text.tick').allTextContents();
      // A 4-hour window: round half hours, date and time in UTC.
      expect(xTicks).toEqual(['09:00', '09:30', '10:00', '10:30', '11:00', '11:30', '12:00', '12:30'].map((hm) => `05-06 ${hm}`));
      expect(yTicks.length).toBeGreaterThanOrEqual(3);
      for (const t of yTicks) expect(t).toMatch(/^\d{1,2},\d{3}$/);
      await page.locator('svg.drift-equity').screenshot({ path: join(SCREENSHOT_DIR, 'tradebot-drift-chart.png') });
    } finally {
      await page.close();
    }
  });

  test('report.json holds the same trades with decimals as strings', async () => {
    const json = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as {
      metrics: Record<string, unknown>; trades: Array<{ netPnl: unknown }>; fills: unknown[]; equity: unknown[];
    };
    expect(json.trades).toHaveLength(result.trades.length);
    expect(json.fills).toHaveLength(result.fills.length);
    expect(json.equity).toHaveLength(result.run.equity.length);
    expect(json.metrics['netPnl']).toBe(result.metrics.netPnl.toString());
    expect(typeof json.trades[0]?.netPnl).toBe('string');
  });

  test('hostile strings in input are escaped: no script runs, no element injected', async () => {
    const hostile = analyseBacktest({
      ...result.run,
      title: '<script>alert("title")</script>',
      fills: result.run.fills.map((f, i) => (i === 0 ? { ...f, clientOrderId: '"><img src=x onerror=alert(1)>' } : f)),
    });
    await writeReport(dir, hostile);
    const { page, problems, requests } = await open();
    try {
      expect(problems).toEqual([]);
      expect(requests).toHaveLength(1);
      expect(await page.locator('script').count()).toBe(0);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('h1').innerText()).toBe('<script>alert("title")</script>');
    } finally {
      await page.close();
      await writeReport(dir, result);
    }
  });

  test('small hand-computed run: markers tell entries, exits and the flip apart; open position listed', async () => {
    const candles = { BTC_USDT: smallCandles };
    const small = analyseBacktest({
      title: 'Small fixture', fills: smallFills, candles, startBalances: smallStartBalances, quoteCurrency: 'USDT', interval: '1h',
      equity: buildEquityCurve(smallFills, candles, smallStartBalances, 'USDT', '1h'),
    });
    await writeReport(join(dir, 'small'), small);
    const { page, problems } = await open('small/report.html');
    try {
      expect(problems).toEqual([]);
      const markers = page.locator('#price-chart path.marker');
      expect(await markers.count()).toBe(7);
      expect(await page.locator('#price-chart path.marker.entry').count()).toBe(4);
      expect(await page.locator('#price-chart path.marker.exit').count()).toBe(2);
      expect(await page.locator('#price-chart path.marker.flip.buy').count()).toBe(1);
      expect(Number(await page.locator('#equity-chart path.line:not(.benchmark)').getAttribute('data-points'))).toBe(11);
      // One trade per position round trip: the two lots bought at c4 and c5 and sold together at c6 are one trade.
      expect(await page.locator('#trades tbody tr').count()).toBe(3);
      expect(await page.locator('#open-positions tbody tr').count()).toBe(1);
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'tradebot-backtest-small.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });

  test('a real backtest: failure banner, orders explained, trades with reasons and duration, settings with hashes; nothing scrolls sideways', async () => {
    const data = await loadBacktestData([{ market: 'BTC_USDT', file: 'test/fixtures/backtest/btc_usdt-1m-binance-2021-09-29.csv' }]);
    const runs = {
      // rsi-reversion exits with OCOs: their margin comes from the collateral account, funded explicitly.
      clean: await runBacktest({
        strategy: 'rsi-reversion', interval: '5m', params: { oversold: 40 }, balances: { USDT: new Decimal(10_000) }, collateralBalances: { USDT: new Decimal(10_000) },
      }, data),
      thrower: await runBacktest({ strategy: 'thrower', strategiesDir: 'test/fixtures/backtest-strategies', balances: { USDT: new Decimal(10_000) } }, data),
      denied: await runBacktest({ strategy: 'denied-buyer', strategiesDir: 'test/fixtures/backtest-strategies', balances: { USDT: new Decimal(10_000), BTC: new Decimal('0.01') } }, data),
    };
    for (const [name, outcome] of Object.entries(runs)) await writeReport(join(dir, name), outcome.result);

    const clean = await open('clean/report.html');
    try {
      expect(clean.problems).toEqual([]);
      expect(await clean.page.locator('#run-health').getAttribute('data-failed')).toBe('false');
      const trades = runs.clean.result.trades;
      expect(trades.length).toBeGreaterThan(0);
      const first = clean.page.locator('#trades tbody tr').first().locator('td');
      const cells = await first.allInnerTexts();
      expect(cells.at(-2)).toBe(trades[0]!.entryReason);
      expect(cells.at(-1)).toBe(trades[0]!.exitReason);
      expect(trades[0]!.entryReason).toBe('stop-limit buy');
      expect(trades[0]!.exitReason).toMatch(/^OCO (take-profit|stop-loss) sell/);
      const settings = await clean.page.locator('#settings').innerText();
      const s = runs.clean.result.run.context!.settings;
      expect(settings).toContain(s.data[0]!.sha256);
      expect(settings).toContain(`version ${s.strategy.version}`);
      expect(settings).toContain('fill model (src/simulator/FILL-MODEL.md)');
      const summary = await clean.page.locator('#summary').innerText();
      for (const label of ['CAGR', 'Calmar', 'SQN', 'Buy and hold return', 'Exposure', 'Average time in a trade']) expect(summary).toContain(label);
      await clean.page.screenshot({ path: join(SCREENSHOT_DIR, 'tradebot-backtest-real.png'), fullPage: true });
      // The long title (every parameter) wraps: the page never scrolls sideways, even on a narrow window.
      for (const width of [1200, 480]) {
        await clean.page.setViewportSize({ width, height: 900 });
        // The function runs in the page (no DOM types in this project's tsconfig: read through globalThis).
        const overflow = await clean.page.evaluate(() => {
          const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
          return root.scrollWidth - root.clientWidth;
        });
        expect(overflow).toBe(0);
      }
      // On a laptop-size window the trades table fits its box: every column (Return and the exit reason too) without a sideways scroll.
      await clean.page.setViewportSize({ width: 1280, height: 800 });
      const fit = await clean.page.evaluate(() => {
        const g = globalThis as unknown as { document: { querySelector(s: string): { scrollWidth: number; clientWidth: number; parentElement: { scrollWidth: number; clientWidth: number } } } };
        const table = g.document.querySelector('#trades');
        return { table: table.scrollWidth, box: table.parentElement.clientWidth, boxScroll: table.parentElement.scrollWidth };
      });
      expect(fit.table).toBeLessThanOrEqual(fit.box);
      expect(fit.boxScroll).toBeLessThanOrEqual(fit.box);
      await clean.page.locator('#trades').screenshot({ path: join(SCREENSHOT_DIR, 'tradebot-backtest-trades-1280.png') });
    } finally {
      await clean.page.close();
    }

    const failed = await open('thrower/report.html');
    try {
      expect(await failed.page.locator('#run-health').getAttribute('data-failed')).toBe('true');
      expect(await failed.page.locator('#run-health').innerText()).toMatch(/The strategy failed during this run[\s\S]*5 errors \(threw 5\)[\s\S]*paused after 5/);
      expect(await failed.page.locator('#strategy-failures tbody tr').count()).toBe(5);
    } finally {
      await failed.page.close();
    }

    const denied = await open('denied/report.html');
    try {
      const counts = denied.page.locator('#order-counts');
      expect(Number(await counts.getAttribute('data-denied'))).toBe(runs.denied.replay.strategyCandles);
      expect(await denied.page.locator('#denied-by-rule').innerText()).toMatch(/balance\s+\d+/);
      expect(await denied.page.locator('#rejected-by-reason').innerText()).toMatch(/venue code \d+[\s\S]*activation/i);
    } finally {
      await denied.page.close();
    }
  });
});
