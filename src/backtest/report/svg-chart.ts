import { downsampleM4, type DrawPoint } from './downsample';
import { escapeHtml } from './html-escape';
import { chartAxes, PLOT_W, WIDTH } from './svg-axes';

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
  /** Title of the time axis; `time (UTC)` unless said. */
  readonly xLabel?: string;
  /** More classes on the main line (`path.line.<lineClass>`). */
  readonly lineClass?: string;
  readonly times: readonly number[];
  readonly values: readonly number[];
  /** Time range of the x axis (so several charts line up); defaults to the data's range. */
  readonly from?: number;
  readonly to?: number;
  /** A step in time larger than this is drawn as a gap. */
  readonly maxStep: number;
  readonly markers?: readonly ChartMarker[];
  /**
   * More lines on the same time axis (e.g. a benchmark): `path.line.<className>` each, drawn under the
   * main line, at `times` (their own) or at the main line's times.
   */
  readonly series?: readonly { readonly values: readonly number[]; readonly className: string; readonly times?: readonly number[] }[];
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
  const markers = spec.markers ?? [];
  const extra = spec.series ?? [];
  const t0 = spec.from ?? spec.times[0] ?? 0;
  const t1 = spec.to ?? Math.max(spec.times[spec.times.length - 1] ?? 1, ...markers.map((m) => m.t));
  const [lo, hi] = valueRange([spec.values, markers.map((m) => m.v), ...extra.map((e) => e.values)]);
  const axes = chartAxes(t0, t1, lo, hi, spec.height, { x: spec.xLabel ?? 'time (UTC)', y: spec.yLabel });
  const line = (times: readonly number[], values: readonly number[], className: string): string => {
    const pts = downsampleM4(times, values, t0, t1, PLOT_W, spec.maxStep);
    return `<path class="${escapeHtml(className)}" data-points="${pts.length}" d="${pathData(pts, axes.x, axes.y)}"/>`;
  };

  // Many fills would bury the price line under full-size triangles: shrink them as they crowd.
  const size = markers.length > 600 ? 2.5 : markers.length > 150 ? 3.5 : 5;
  const dataAttrs = Object.fromEntries(Object.entries(spec.data ?? {}).map(([k, v]) => [`data-${k}`, v]));
  const attrs = Object.entries({ ...(spec.id === undefined ? {} : { id: spec.id }), class: spec.className, ...dataAttrs })
    .map(([k, v]) => ` ${k}="${escapeHtml(v)}"`)
    .join('');
  return [
    `<svg${attrs} viewBox="0 0 ${WIDTH} ${spec.height}" role="img" aria-label="${escapeHtml(spec.title)}" xmlns="http://www.w3.org/2000/svg">`,
    `<title>${escapeHtml(spec.title)}</title>`,
    axes.svg,
    ...extra.map((e) => line(e.times ?? spec.times, e.values, `line ${e.className}`)),
    line(spec.times, spec.values, spec.lineClass === undefined ? 'line' : `line ${spec.lineClass}`),
    `<g class="markers${size < 5 ? ' dense' : ''}" data-count="${markers.length}">${markers.map((m) => marker(m, axes.x(m.t), axes.y(m.v), size)).join('')}</g>`,
    '</svg>',
  ].join('\n');
}

/** A legend for lines drawn by renderLineChart: a short stroke of each line's class, then its label (escaped). */
export function lineLegend(items: readonly { readonly className: string; readonly label: string }[]): string {
  const entries = items.map((i) => `<span class="${escapeHtml(i.className)}"><svg class="swatch" viewBox="0 0 26 10" aria-hidden="true"><path class="line ${escapeHtml(i.className)}" d="M1 5H25"/></svg>${escapeHtml(i.label)}</span>`);
  return `<div class="legend">${entries.join('')}</div>`;
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

/** The range over several lists, padded by 5 % so the line and markers do not touch the frame (the lists are not concatenated: each can hold half a million values). */
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
