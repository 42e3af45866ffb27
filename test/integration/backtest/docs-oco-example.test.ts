import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * docs/strategies.md "OCO exits" as a new author meets it: the worked example's code block, written to
 * a fresh strategies folder, backtested with the doc's own command lines through the built CLI, trades
 * in both collateral modes without a single denial. The fixture copy must be the same text.
 */
const ROOT = join(__dirname, '../../..');
const CLI = join(ROOT, 'dist/src/main.js');
const DOC = readFileSync(join(ROOT, 'docs/strategies.md'), 'utf8');

/** The fenced block between `<!-- NAME:begin -->` and `<!-- NAME:end -->`. */
function block(name: string): string {
  const m = new RegExp(`<!-- ${name}:begin -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\`\\n<!-- ${name}:end -->`).exec(DOC);
  if (m === null) throw new Error(`docs/strategies.md has no ${name} block`);
  return m[1] as string;
}

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('node', [CLI, ...args], { cwd: ROOT }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error('run "npm run build" first: this test runs dist/src/main.js');
});

test('the doc\'s example is the fixture file, word for word', () => {
  expect(block('docs-oco-example')).toBe(readFileSync(join(ROOT, 'test/fixtures/strategies-docs/dip-oco.ts'), 'utf8'));
});

test('the documented commands backtest the documented strategy: trades, no denials, in both collateral modes', async () => {
  const strategies = mkdtempSync(join(tmpdir(), 'tb-docs-oco-'));
  writeFileSync(join(strategies, 'dip-oco.ts'), block('docs-oco-example'));
  const commands = block('docs-oco-commands').trim().split('\n');
  expect(commands).toHaveLength(2);
  const modes: string[] = [];
  for (const line of commands) {
    const words = line.trim().split(/\s+/);
    expect(words.slice(0, 2)).toEqual(['tradebot', 'backtest']);
    // The author's `--strategies strategies` is this test's fresh folder.
    const args = words.slice(1).map((w, i, all) => (all[i - 1] === '--strategies' ? strategies : w));
    const out = mkdtempSync(join(tmpdir(), 'tb-docs-oco-out-'));
    const r = await cli([...args, '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as {
      settings: { collateral: string }; orders: { placed: number; denied: number; rejected: number }; metrics: { tradeCount: number };
    };
    modes.push(report.settings.collateral);
    expect(report.metrics.tradeCount).toBeGreaterThanOrEqual(5);
    expect(report.orders).toMatchObject({ denied: 0, rejected: 0 });
    expect(r.stdout).toMatch(/orders {7}\d+ placed, 0 denied, 0 rejected/);
  }
  expect(modes).toEqual(['separate', 'unified']);
}, 60_000);
