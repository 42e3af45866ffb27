/**
 * Metric names referenced by a PromQL expression. Not a PromQL parser: it removes what cannot be a
 * metric name (strings, label matchers, range/subquery brackets, `by (...)`-style label lists,
 * function calls, keywords, numbers, Grafana `$variables`) and returns the identifiers left.
 */
const KEYWORDS = new Set([
  'and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right',
  'inf', 'nan', 'atan2',
]);

export function metricNamesIn(expr: string): string[] {
  let s = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/g, ' ');
  // Durations after `offset` and numbers such as 1e3 or 0.8.
  s = s.replace(/\b\d+(?:\.\d+)?(?:e[+-]?\d+)?[smhdwy]?\b/gi, ' ');
  const names: string[] = [];
  for (const m of s.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?/g)) {
    const [whole, call] = [m[0], m[1]];
    const id = whole.replace(/\s*\($/, '');
    if (call !== undefined || KEYWORDS.has(id.toLowerCase())) continue;
    names.push(id);
  }
  return [...new Set(names)];
}

/** The metric of a Grafana `label_values(metric{...}, label)` variable query, if it names one. */
export function labelValuesMetric(query: string): string | undefined {
  return /label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)/.exec(query)?.[1];
}

/** A histogram's series name reduced to the metric it belongs to. */
export function baseName(name: string, histograms: ReadonlySet<string>): string {
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return base !== name && histograms.has(base) ? base : name;
}

/**
 * Label names an expression groups by (`by (...)`, `without (...)`, `on (...)`, `ignoring (...)`)
 * or matches on (`{label="..."}`). Grafana variables and strings are ignored.
 */
export function labelsUsedIn(expr: string): string[] {
  const s = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
  const out = new Set<string>();
  for (const m of s.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)) {
    for (const l of (m[1] ?? '').split(',').map((x) => x.trim()).filter(Boolean)) out.add(l);
  }
  for (const m of s.matchAll(/\{([^}]*)\}/g)) {
    for (const part of (m[1] ?? '').split(',')) {
      const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(=~|!~|!=|=)/.exec(part)?.[1];
      if (name !== undefined) out.add(name);
    }
  }
  return [...out];
}
