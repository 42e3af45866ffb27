import { downsampleM4, type DrawPoint } from './downsample';
import { escapeHtml } from './html-escape';
import { formatAxisNumber, formatTime } from './format';

/** Chart geometry in SVG user units; the SVG scales to the page width through its viewBox. */
const WIDTH = 1000;
const MARGIN = { left: 84, right: 24, top: 16, bottom: 46 } as const;
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;

/** A point marker: a fill drawn at (time, price). */
export interface ChartMarker {
  readonly t: number;
  readonly v: number;
  readonly side: 'buy' | 'sell';
  readonly action: 'entry' | 'exit' | 'flip';
  /** Tooltip text (escaped on output). */
  readonly label: string;
}

export interface LineChartSpec {
  /** Attributes of the root <svg>: id and/or class. Values are escaped. */
  readonly id?: string;
  readonly className: string;
  readonly height: number;
  readonly title: string;
  readonly yLabel: string;
  readonly times: readonly number[];
  readonly values: readonly number[];
  /** Time range of the x axis (so several charts line up); defaults to the data's range. */
  readonly from?: number;
  readonly to?: number;
  /** A step in time larger than this is drawn as a gap. */
  readonly maxStep: number;
  readonly markers?: readonly ChartMarker[];
  /** More lines on the same time axis (e.g. a benchmark): `path.line.<className>` each, drawn under the main line. */
  readonly series?: readonly { readonly values: readonly number[]; readonly className: string }[];
  /** `data-*` attributes on the root (`{ market }` → `data-market`); keys must be plain names, values are escaped. */
  readonly data?: Readonly<Record<string, string>>;
}

/**
 * Renders a time/value line chart as inline SVG (no script, no external resource): axes with
 * UTC time ticks and value ticks, the line downsampled to at most 4 points per pixel column,
 * and optional fill markers (buy = green triangle pointing up, sell = red pointing down; entries
 * filled, exits hollow, flips filled with a dark outline). The line is `path.line` with
 * `data-points`; markers are `path.marker` with `data-side` and `data-action`.
 */
export function renderLineChart(spec: LineChartSpec): string {
  const plotH = spec.height - MARGIN.top - MARGIN.bottom;
  const markers = spec.markers ?? [];
  const t0 = spec.from ?? spec.times[0] ?? 0;
  const t1 = spec.to ?? Math.max(spec.times[spec.times.length - 1] ?? 1, ...markers.map((m) => m.t));
  const extra = spec.series ?? [];
  const [lo, hi] = valueRange([spec.values, markers.map((m) => m.v), ...extra.map((e) => e.values)]);
  const x = (t: number): number => MARGIN.left + ((t - t0) / (t1 > t0 ? t1 - t0 : 1)) * PLOT_W;
  const y = (v: number): number => MARGIN.top + (1 - (v - lo) / (hi - lo)) * plotH;

  // Many fills would bury the price line under full-size triangles: shrink them as they crowd.
  const size = markers.length > 600 ? 2.5 : markers.length > 150 ? 3.5 : 5;
  const points = downsampleM4(spec.times, spec.values, t0, t1, PLOT_W, spec.maxStep);
  const dataAttrs = Object.fromEntries(Object.entries(spec.data ?? {}).map(([k, v]) => [`data-${k}`, v]));
  const attrs = Object.entries({ ...(spec.id === undefined ? {} : { id: spec.id }), class: spec.className, ...dataAttrs })
    .map(([k, v]) => ` ${k}="${escapeHtml(v)}"`)
    .join('');
  return [
    `<svg${attrs} viewBox="0 0 ${WIDTH} ${spec.height}" role="img" aria-label="${escapeHtml(spec.title)}" xmlns="http://www.w3.org/2000/svg">`,
    `<title>${escapeHtml(spec.title)}</title>`,
    yAxis(lo, hi, y, plotH, spec.yLabel),
    xAxis(t0, t1, x, spec.height),
    ...extra.map((e) => {
      const pts = downsampleM4(spec.times, e.values, t0, t1, PLOT_W, spec.maxStep);
      return `<path class="line ${escapeHtml(e.className)}" data-points="${pts.length}" d="${pathData(pts, x, y)}"/>`;
    }),
    `<path class="line" data-points="${points.length}" d="${pathData(points, x, y)}"/>`,
    `<g class="markers${size < 5 ? ' dense' : ''}" data-count="${markers.length}">${markers.map((m) => marker(m, x(m.t), y(m.v), size)).join('')}</g>`,
    '</svg>',
  ].join('\n');
}

function pathData(points: readonly DrawPoint[], x: (t: number) => number, y: (v: number) => number): string {
  return points.map((p) => `${p.gapBefore ? 'M' : 'L'}${x(p.t).toFixed(1)} ${y(p.v).toFixed(1)}`).join('');
}

function marker(m: ChartMarker, px: number, py: number, size: number): string {
  // The triangle's tip sits on the fill price; buys point up from below, sells down from above.
  const h = (size * 1.8).toFixed(1);
  const d = `M${px.toFixed(1)} ${py.toFixed(1)}l${size} ${m.side === 'buy' ? h : `-${h}`}h-${2 * size}z`;
  return `<path class="marker ${m.side} ${m.action}" data-side="${m.side}" data-action="${m.action}" d="${d}"><title>${escapeHtml(m.label)}</title></path>`;
}

/** Value range padded by 5 % so the line and markers do not touch the frame. */
/** The padded range over several lists (not concatenated: each can hold half a million values). */
function valueRange(lists: readonly (readonly number[])[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const values of lists) {
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as number;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (!Number.isFinite(lo)) return [0, 1];
  if (hi === lo) return [lo - Math.max(1, Math.abs(lo) * 0.01), hi + Math.max(1, Math.abs(hi) * 0.01)];
  const pad = (hi - lo) * 0.05;
  return [lo - pad, hi + pad];
}

function yAxis(lo: number, hi: number, y: (v: number) => number, plotH: number, label: string): string {
  const step = niceStep((hi - lo) / 6);
  const ticks: string[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    const py = y(v).toFixed(1);
    ticks.push(`<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${py}" y2="${py}"/>`
      + `<text class="tick" x="${MARGIN.left - 6}" y="${py}" text-anchor="end" dominant-baseline="middle">${formatAxisNumber(v, step)}</text>`);
  }
  const cy = MARGIN.top + plotH / 2;
  return `<g class="y-axis">${ticks.join('')}<line class="axis" x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}"/>`
    + `<text class="axis-label" transform="translate(14 ${cy.toFixed(1)}) rotate(-90)" text-anchor="middle">${escapeHtml(label)}</text></g>`;
}

const TIME_STEPS = [60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400, 2 * 86_400, 7 * 86_400, 14 * 86_400, 30 * 86_400, 91 * 86_400, 182 * 86_400, 365 * 86_400];

function xAxis(t0: number, t1: number, x: (t: number) => number, height: number): string {
  const span = Math.max(t1 - t0, 60);
  const step = TIME_STEPS.find((s) => span / s <= 7) ?? 365 * 86_400 * Math.ceil(span / (7 * 365 * 86_400));
  const bottom = height - MARGIN.bottom;
  const ticks: string[] = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
    const px = x(t).toFixed(1);
    const text = step >= 86_400 ? formatTime(t).slice(0, 10) : formatTime(t).slice(5);
    // A label centred on a tick near the right edge would be cut off: right-align it instead.
    const anchor = x(t) > WIDTH - MARGIN.right - 40 ? 'end' : 'middle';
    ticks.push(`<line class="grid" x1="${px}" x2="${px}" y1="${MARGIN.top}" y2="${bottom}"/>`
      + `<text class="tick" x="${px}" y="${bottom + 16}" text-anchor="${anchor}">${text}</text>`);
  }
  return `<g class="x-axis">${ticks.join('')}<line class="axis" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${bottom}" y2="${bottom}"/>`
    + `<text class="axis-label" x="${MARGIN.left + PLOT_W / 2}" y="${height - 6}" text-anchor="middle">time (UTC)</text></g>`;
}

/** 1, 2 or 5 times a power of ten, at least `raw`. */
function niceStep(raw: number): number {
  const pow = 10 ** Math.floor(Math.log10(raw));
  const m = raw / pow;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * pow;
}
