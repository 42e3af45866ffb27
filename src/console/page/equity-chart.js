/* global window, uPlot, ResizeObserver */
// The PnL-over-market-time chart (GET /api/v1/equity), drawn with uPlot: x is market time in
// UTC (the simulator's clock in paper mode), y the realised PnL, its last point with the unrealised.
(function () {
  'use strict';
  const TB = (window.TB = window.TB || {});
  let plot;
  let observer;
  let currency = '';

  const utc = (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC');

  /** "09-17" for day steps, "22:58" for minute steps, "22:58:05" below. */
  function tickLabels(_u, splits, _axis, _space, step) {
    return splits.map((s) => {
      const t = TB.marketTime(s * 1000, true); // YYYY-MM-DD HH:MM:SS
      return step >= 86400 ? t.slice(5, 10) : step >= 60 ? t.slice(11, 16) : t.slice(11);
    });
  }

  function size(box) {
    return { width: Math.max(240, box.clientWidth), height: box.clientWidth < 500 ? 180 : 240 };
  }

  function create(box, data) {
    const opts = {
      ...size(box),
      tzDate: utc,
      scales: { x: { time: true } },
      legend: { show: true, live: true },
      cursor: { drag: { x: true, y: false } },
      series: [
        { label: 'market time (UTC)', value: (_u, v) => (v == null ? '-' : TB.marketTime(v * 1000, false)) },
        { label: `PnL (${currency})`, stroke: '#2f7ed8', width: 2, fill: 'rgba(47,126,216,0.08)', points: { show: false }, value: (_u, v) => (v == null ? '-' : TB.money(v)) },
      ],
      axes: [
        // 24-hour UTC as everywhere on the page (uPlot's default is US style), as fine as the tick step needs.
        { label: 'market time (UTC)', stroke: '#8a94a6', space: 70, grid: { stroke: 'rgba(128,128,128,0.15)' }, values: tickLabels },
        { label: currency, stroke: '#8a94a6', size: 70, grid: { stroke: 'rgba(128,128,128,0.15)' } },
      ],
    };
    plot = new uPlot(opts, data, box);
    if (!observer) {
      observer = new ResizeObserver(() => { if (plot) plot.setSize(size(box)); });
      observer.observe(box);
    }
  }

  /** Draws (or redraws) the chart from the API's answer. */
  TB.renderEquity = function renderEquity(answer) {
    const box = TB.byId('equity-chart');
    const note = TB.byId('equity-note');
    if (typeof uPlot === 'undefined') {
      note.textContent = 'The chart library (/assets/uplot.js) did not load.';
      return;
    }
    const points = answer.points || [];
    // uPlot's time scale is in seconds and wants x ascending with no duplicates: the last value at an instant wins.
    const byTime = new Map();
    for (const p of points) byTime.set(p.marketMs / 1000, Number(p.equity));
    const xs = [...byTime.keys()].sort((a, b) => a - b);
    const data = [xs, xs.map((x) => byTime.get(x))];
    box.dataset.points = String(xs.length);
    note.textContent = xs.length < 2 ? 'No fills yet: the line starts with the first one.' : '';
    if (plot && currency !== answer.currency) {
      plot.destroy();
      plot = undefined;
    }
    currency = answer.currency || '';
    if (!plot) create(box, data);
    else plot.setData(data);
  };
})();
