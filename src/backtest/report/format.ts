import type { Decimal } from '../../domain/decimal';

/** Money for display: fixed decimals, rounded half up; the exact value stays in report.json. */
export function formatMoney(value: Decimal | null, decimals = 2): string {
  return value === null ? '–' : value.toFixed(decimals);
}

/** Money in a dense table: at most `decimals`, trailing zeros dropped down to 2 (`41872.9800` → `41872.98`); display only. */
export function formatMoneyShort(value: Decimal | null, decimals = 4): string {
  if (value === null) return '–';
  const text = value.toFixed(decimals);
  return text.replace(/(\.\d\d\d*?)0+$/, '$1');
}

/** A ratio for display; null shows a dash ("not defined"), Infinity the ∞ sign. */
export function formatRatio(value: number | null, decimals = 2): string {
  if (value === null || Number.isNaN(value)) return '–';
  if (!Number.isFinite(value)) return value > 0 ? '∞' : '−∞';
  return value.toFixed(decimals);
}

export function formatPercent(value: number | null, decimals = 2): string {
  return value === null ? '–' : `${value.toFixed(decimals)} %`;
}

/** Unix seconds → `YYYY-MM-DD HH:MM` in UTC (the report states UTC once in its header). */
export function formatTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/** A number for axis labels: few digits, thousands separated by a thin gap, no exponent. */
export function formatAxisNumber(value: number, step: number): string {
  const decimals = Math.max(0, Math.min(8, -Math.floor(Math.log10(step))));
  const [int = '0', frac] = Math.abs(value).toFixed(decimals).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${value < 0 && Number(value.toFixed(decimals)) !== 0 ? '−' : ''}${grouped}${frac === undefined ? '' : `.${frac}`}`;
}

/** A duration for tables: `45m`, `3h 05m`, `2d 4h`. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '–';
  const m = Math.round(seconds / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}
