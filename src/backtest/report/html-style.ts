import { escapeHtml } from './html-escape';

/** The charts' and legends' rules (renderLineChart, lineLegend), shared by every page that draws one. */
export const CHART_STYLE = `
.chart{background:#fff;border:1px solid #e3e6eb;margin:0 0 12px}
svg{display:block;width:100%;height:auto}
svg .line{fill:none;stroke:#2563eb;stroke-width:1.4;stroke-linejoin:round}
svg .line.benchmark{stroke:#9ca3af;stroke-dasharray:4 3;stroke-width:1.2}
svg.drawdown .line{stroke:#b3261e}
svg .grid{stroke:#eceef2;stroke-width:1}
svg .axis{stroke:#9aa3b2;stroke-width:1}
svg .tick{font-size:12px;fill:#4b5363}
svg .axis-label{font-size:13px;fill:#1d2433}
svg .marker{stroke-width:1.3}
svg .marker.buy{fill:#16a34a;stroke:#16a34a}svg .marker.sell{fill:#dc2626;stroke:#dc2626}
svg .marker.exit{fill:#fff}
svg .marker.flip{stroke:#111827}
svg .dense .marker{opacity:.75;stroke-width:1}
.legend{display:flex;gap:18px;flex-wrap:wrap;color:#4b5363;font-size:13px;margin:4px 0 8px}
.legend svg{display:inline-block;width:14px;height:12px;vertical-align:-1px;margin-right:4px}
.legend svg.swatch{width:26px;height:10px}
`;

/** The stylesheet of every report page (inline: the pages load nothing). */
export const PAGE_STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1d2433;background:#f6f7f9;margin:0}
main{max-width:1100px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:22px;margin:0 0 4px;overflow-wrap:anywhere}h2{font-size:17px;margin:28px 0 8px}
.sub{color:#5b6475;margin:0 0 16px;overflow-wrap:anywhere}
.scroll{overflow-x:auto}
td.wrap,th.wrap{white-space:normal;overflow-wrap:break-word;text-align:left;min-width:12em}
.alert{background:#fdecea;border:1px solid #f5c2c0;color:#7f1d1d;padding:10px 14px;margin:12px 0;border-radius:4px}
.ok{background:#e8f5ec;border:1px solid #b7e1c4;color:#14532d;padding:10px 14px;margin:12px 0;border-radius:4px}
ul.rules{margin:4px 0 0 18px;padding:0}
ul.rules li{margin:2px 0}
code{font-size:12px;overflow-wrap:anywhere}
table.kv{table-layout:fixed}table.kv th{width:14em;white-space:normal}table.kv td{white-space:normal;overflow-wrap:anywhere;text-align:left}
table{border-collapse:collapse;background:#fff;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:5px 10px;border-bottom:1px solid #e3e6eb;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}
thead th{background:#eef0f4;position:sticky;top:0}
table.dense th,table.dense td{padding:4px 6px}table.dense thead th{white-space:normal;vertical-align:bottom}
table.dense .text{text-align:left}table.dense .nowrap{white-space:nowrap}table.dense td.wrap,table.dense th.wrap{min-width:0}
.summary{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(320px,100%),1fr));gap:0 24px}
.summary th,.summary td{white-space:normal}
.pos{color:#137333}.neg{color:#b3261e}
.note{color:#5b6475;font-style:italic;margin:6px 0}
${CHART_STYLE}`;

/**
 * Every report page starts the same way: a strict CSP (no script, no network: the file is opened from
 * disk), the shared style, and the title as the heading. Ends after the <h1> line.
 */
export function pageStart(title: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
`;
}
