import { scaleLinear, scaleUtc } from 'd3-scale';
import { escapeHtml } from './html-escape';
import { formatAxisNumber, formatTime } from './format';

/** Chart geometry in SVG user units; the SVG scales to the page width through its viewBox. */
export const WIDTH = 1000;
export const MARGIN = { left: 84, right: 24, top: 16, bottom: 46 } as const;
export const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;

/** About this many ticks on each axis (d3 picks round values: 1, 2 or 5 times a power of ten; whole minutes, hours, days, months). */
const X_TICKS = 7;
const Y_TICKS = 6;
/** About the width of one digit of a tick label (12 px font) in SVG units. */
const TICK_CHAR_WIDTH = 7;

/** Pixel position of a time (Unix seconds) and of a value, and the axes drawn with their ticks. */
export interface ChartAxes {
  readonly x: (t: number) => number;
  readonly y: (v: number) => number;
  readonly svg: string;
}

/**
 * The two scales of a time/value chart (d3-scale: UTC time ticks, "nice" value ticks), and the axes
 * as SVG: grid lines, tick labels, an axis line and a title on each axis. `lo`..`hi` is widened to
 * the nearest round ticks so the first and last grid lines frame the data.
 */
export function chartAxes(t0: number, t1: number, lo: number, hi: number, height: number, labels: { readonly x: string; readonly y: string }): ChartAxes {
  const bottom = height - MARGIN.bottom;
  const xs = scaleUtc().domain([t0 * 1000, (t1 > t0 ? t1 : t0 + 1) * 1000]).range([MARGIN.left, WIDTH - MARGIN.right]);
  const ys = scaleLinear().domain([lo, hi]).nice(Y_TICKS).range([bottom, MARGIN.top]);
  const x = (t: number): number => xs(t * 1000);
  const y = (v: number): number => ys(v);
  return { x, y, svg: `${yAxis(ys.ticks(Y_TICKS), y, bottom, labels.y)}\n${xAxis(xs.ticks(X_TICKS).map((d) => d.getTime() / 1000), x, height, labels.x)}` };
}

function yAxis(ticks: readonly number[], y: (v: number) => number, bottom: number, label: string): string {
  const step = ticks.length > 1 ? (ticks[1] as number) - (ticks[0] as number) : Math.abs(ticks[0] ?? 1) || 1;
  const parts = ticks.map((v) => {
    const py = y(v).toFixed(1);
    return `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${py}" y2="${py}"/>`
      + `<text class="tick" x="${MARGIN.left - 6}" y="${py}" text-anchor="end" dominant-baseline="middle">${formatAxisNumber(v, step)}</text>`;
  });
  const cy = (MARGIN.top + bottom) / 2;
  return `<g class="y-axis">${parts.join('')}<line class="axis" x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${bottom}"/>`
    + `<text class="axis-label" transform="translate(14 ${cy.toFixed(1)}) rotate(-90)" text-anchor="middle">${escapeHtml(label)}</text></g>`;
}

function xAxis(ticks: readonly number[], x: (t: number) => number, height: number, label: string): string {
  const bottom = height - MARGIN.bottom;
  const text = timeTickFormat(ticks);
  const parts = ticks.map((t) => {
    const px = x(t);
    const label = text(t);
    // A label centred on a tick near the right edge would be cut off: right-align only that one (the left
    // margin is wide enough), so that it does not run into its neighbour when it would have fitted centred.
    const anchor = px + (label.length * TICK_CHAR_WIDTH) / 2 > WIDTH - 2 ? 'end' : 'middle';
    return `<line class="grid" x1="${px.toFixed(1)}" x2="${px.toFixed(1)}" y1="${MARGIN.top}" y2="${bottom}"/>`
      + `<text class="tick" x="${px.toFixed(1)}" y="${bottom + 16}" text-anchor="${anchor}">${label}</text>`;
  });
  return `<g class="x-axis">${parts.join('')}<line class="axis" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${bottom}" y2="${bottom}"/>`
    + `<text class="axis-label" x="${MARGIN.left + PLOT_W / 2}" y="${height - 6}" text-anchor="middle">${escapeHtml(label)}</text></g>`;
}

/** One label format for every tick of an axis, as short as its ticks allow: dates on day ticks, seconds only when ticks have them. */
function timeTickFormat(ticks: readonly number[]): (t: number) => string {
  if (ticks.some((t) => t % 60 !== 0)) return (t) => new Date(t * 1000).toISOString().slice(11, 19);
  if (ticks.every((t) => t % 86_400 === 0)) return (t) => formatTime(t).slice(0, 10);
  return (t) => formatTime(t).slice(5);
}
