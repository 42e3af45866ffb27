import { isInterval, type Interval } from '../domain/candle';
import { Decimal, parseDecimal } from '../domain/decimal';
import { BacktestInputError } from '../domain/errors';
import type { RiskSection } from '../config/risk-limits';
import { riskSection } from '../config/schema';
import { parseFillModel, type FillModel, type FillModelText } from '../domain/fill-model';

/**
 * Parsing of the backtest / download command-line values. Each throws BacktestInputError naming the
 * option, so the CLI prints one clear line.
 */

/** `1632808740` (Unix seconds) or an ISO date/time such as `2021-09-29` or `2021-09-29T07:00:00Z` (UTC when no zone). */
export function parseTime(text: string, option: string): number {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? `${trimmed}T00:00:00Z` : /[zZ]|[+-]\d{2}:?\d{2}$/.test(trimmed) ? trimmed : `${trimmed}Z`;
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) throw new BacktestInputError(`${option}: "${text}" is neither Unix seconds nor an ISO date`, { field: option });
  return Math.floor(ms / 1000);
}

export function parseIntervalOption(text: string, option: string): Interval {
  if (!isInterval(text)) throw new BacktestInputError(`${option}: "${text}" is not an interval (1m, 5m, 1h, 1d, ...)`, { field: option });
  return text;
}

/** `USDT=10000` (repeatable) -> { USDT: Decimal(10000) }; `option` names the flag in errors. */
export function parseBalances(items: readonly string[], option = '--balance'): Record<string, Decimal> {
  const out: Record<string, Decimal> = {};
  const field = option.replace(/^--/, '');
  for (const item of items) {
    const m = /^([A-Z0-9]{1,20})=(.+)$/.exec(item.trim());
    if (m === null) throw new BacktestInputError(`${option} expects CURRENCY=AMOUNT (e.g. USDT=10000), got "${item}"`, { field });
    out[m[1] as string] = parseDecimal(m[2], `${option} ${m[1]}`);
  }
  return out;
}

/** `--fill-volume-share` / `--oco-cancel-on` -> the simulator's FillModel (absent = the real default). */
export function fillModelOption(text: FillModelText): FillModel {
  const parsed = parseFillModel(text);
  if (parsed.ok) return parsed.model;
  const option = parsed.field === 'volumeShare' ? '--fill-volume-share' : '--oco-cancel-on';
  throw new BacktestInputError(`${option} ${parsed.reason}`, { field: option.slice(2) });
}

/** `--params '{"fast":5}'`: a JSON object. */
export function parseJsonObject(text: string, option: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new BacktestInputError(`${option}: not valid JSON: ${(err as Error).message}`, { field: option });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new BacktestInputError(`${option}: expected a JSON object`, { field: option });
  return value as Record<string, unknown>;
}

/**
 * `--risk '{"dailyLossLimit":"200","defaults":{"priceBand":"0.05"}}'`: the daemon's `risk` config
 * section (same names, same defaults such as the fee margin, same checks: an unknown key is refused,
 * as a typo must not silently disable a limit).
 */
export function parseRiskOption(text: string | undefined): RiskSection {
  const parsed = riskSection.safeParse(text === undefined ? {} : parseJsonObject(text, '--risk'));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || '(risk)';
    throw new BacktestInputError(`--risk: ${where}: ${issue?.message ?? 'invalid'} (the keys of the config's risk section: ${Object.keys(riskSection.shape).join(', ')})`, { field: 'risk', path: where });
  }
  return parsed.data;
}

export function decimalRecordToText(record: Readonly<Record<string, Decimal>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record)) out[k] = v.toString();
  return out;
}

export function textRecordToDecimal(record: Readonly<Record<string, string>>): Record<string, Decimal> {
  const out: Record<string, Decimal> = {};
  for (const [k, v] of Object.entries(record)) out[k] = new Decimal(v);
  return out;
}
