import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseConfig } from '../../../src/config/load';
import { Decimal } from '../../../src/domain/decimal';
import { privateDir, writeDriftJob, type DriftJob } from '../../../src/drift/drift-job';
import { driftSpecOf } from '../../../src/drift/drift-spec';
import { readRecordsSnapshot, writeRecordsSnapshot, type RecordsSnapshot, type SnapshotScope } from '../../../src/drift/records-snapshot';
import { fromWire } from '../../../src/strategy/guest/wire';
import { InMemoryDeploymentLog } from '../../../src/store/memory/in-memory-deployment-log';

/**
 * Issue #29, finding 8 (first half): "The drift snapshot (paper without Redis) is written to a
 * predictable name in the shared temp dir; a file pre-created by someone else keeps mode 0666 and is
 * read back". Now: a private directory (mkdtemp, 0700) and exclusive creation (mode 0600), so a file
 * someone else made is refused, never written into nor read back.
 */
const mode = (file: string): number => statSync(file).mode & 0o777;
const EMPTY: RecordsSnapshot = { format: 1, candles: [], decisions: [], balances: [], runs: [], orders: [] };

function spec(): ReturnType<typeof driftSpecOf> {
  const config = parseConfig({ mode: 'paper', paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }], balances: { USDT: '1' } }, strategies: { enabled: [{ name: 'churn' }] } }, {}, 'paper.yaml');
  return { ...driftSpecOf(config, '/srv/tradebot', 1_700_000_000, 1_700_003_600), balances: { USDT: new Decimal('1000.12345678'), BTC: new Decimal('0.001') } };
}

let scratch: string;
beforeEach(() => { scratch = mkdtempSync(path.join(tmpdir(), 'drift-job-test-')); });
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

describe('privateDir', () => {
  test('a fresh 0700 directory with a random name under the temp dir, removed with everything in it', async () => {
    const a = await privateDir('tradebot-drift');
    const b = await privateDir('tradebot-drift');
    try {
      expect(path.dirname(a.dir)).toBe(tmpdir());
      expect(path.basename(a.dir)).toMatch(/^tradebot-drift-[A-Za-z0-9]{6}$/);
      expect(a.dir).not.toBe(b.dir);
      expect(statSync(a.dir).isDirectory()).toBe(true);
      expect(mode(a.dir)).toBe(0o700);
      expect(statSync(a.dir).uid).toBe(process.getuid?.());
      await writeDriftJob(a.dir, 'job-0', spec(), EMPTY);
      await a.remove();
      expect(existsSync(a.dir)).toBe(false);
      await a.remove(); // twice is harmless (a stop racing the end of a check)
    } finally {
      await a.remove();
      await b.remove();
    }
  });
});

describe('writeDriftJob', () => {
  test('writes the job as a 0600 file the guest reads back: spec (with its decimals) and records', async () => {
    const s = spec();
    const file = await writeDriftJob(scratch, 'job-0', s, EMPTY);
    expect(file).toBe(path.join(scratch, 'job-0.json'));
    expect(mode(file)).toBe(0o600);
    const job = JSON.parse(readFileSync(file, 'utf8')) as DriftJob;
    expect(job.format).toBe(1);
    expect(job.records).toEqual(EMPTY);
    expect(fromWire(job.spec)).toEqual(s);
    expect(Decimal.isDecimal((fromWire(job.spec) as typeof s).balances?.['USDT'])).toBe(true);
  });

  test('refuses to write over a file already there (EEXIST): its content and mode stay as they were, nothing is reused', async () => {
    const planted = path.join(scratch, 'job-0.json');
    const theirs = JSON.stringify({ format: 1, spec: {}, records: { ...EMPTY, orders: [{ planted: true }] } });
    writeFileSync(planted, theirs);
    chmodSync(planted, 0o666);
    await expect(writeDriftJob(scratch, 'job-0', spec(), EMPTY)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(planted, 'utf8')).toBe(theirs);
    expect(mode(planted)).toBe(0o666);
  });
});

describe('writeRecordsSnapshot', () => {
  const scope: SnapshotScope = { from: 1_700_000_060, to: 1_700_000_180, lookbackSec: 60, subscriptions: [{ market: 'BTC_USDT', interval: '1m' }], strategies: ['churn'] };
  async function log(): Promise<InMemoryDeploymentLog> {
    const l = new InMemoryDeploymentLog();
    await l.recordCandle({
      market: 'BTC_USDT', interval: '1m', time: 1_700_000_060, open: '1', high: '2', low: '1', close: '2', volume: '3', volumeMoney: '4', source: 'live', stale: false, receivedMarketMs: 1_700_000_120_000,
    });
    return l;
  }
  const journal = { listByStrategy: async (): Promise<[]> => [] };

  test('a new file gets mode 0600 and reads back', async () => {
    const file = path.join(scratch, 'records.json');
    await writeRecordsSnapshot(file, await log(), journal, scope);
    expect(mode(file)).toBe(0o600);
    const sources = await readRecordsSnapshot(file);
    expect((await sources.log.candles('BTC_USDT', '1m', 0, 2_000_000_000)).map((c) => c.close)).toEqual(['2']);
  });

  test('a file pre-created by someone else (mode 0666) is refused with EEXIST: not written into, its mode unchanged', async () => {
    // At f3f3721 this write succeeded: writeFile's mode applies only to a file it creates, so the
    // planted file stayed 0666 (readable and writable by everyone) and the drift child read it back.
    const file = path.join(scratch, `tradebot-drift-${process.pid}-1700000180.json`);
    writeFileSync(file, 'planted');
    chmodSync(file, 0o666);
    await expect(writeRecordsSnapshot(file, await log(), journal, scope)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(file, 'utf8')).toBe('planted');
    expect(mode(file)).toBe(0o666);
  });
});
