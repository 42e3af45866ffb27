import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { parse } from 'yaml';
import { ALERT_DECISIONS, LABEL_DOMAINS, METRIC_DEFS, METRIC_NAMES, RESERVED_LABELS, type MetricKey } from '../../../src/metrics/definitions';
import { createMetrics, registeredMetricNames } from '../../../src/metrics/registry';
import { baseName, labelsUsedIn, labelValuesMetric, metricNamesIn } from '../../helpers/promql-names';

const root = join(__dirname, '../../..');
/** Series Prometheus itself creates for every target. */
const PROMETHEUS_BUILTIN = new Set(['up']);

const registry = new Registry();
createMetrics(registry);
const exported = new Set(registeredMetricNames(registry));
const histograms = new Set(
  registry.getMetricsAsArray().filter((m) => (m as unknown as { type?: string }).type === 'histogram').map((m) => m.name),
);

function unknownNames(exprs: readonly string[]): string[] {
  return exprs.flatMap((e) => metricNamesIn(e).map((n) => baseName(n, histograms)))
    .filter((n) => !exported.has(n) && !PROMETHEUS_BUILTIN.has(n));
}

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
  fieldConfig?: { defaults?: { mappings?: { type: string; options: Record<string, { text?: string }> }[] } };
}
interface Dashboard {
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query?: string | { query: string } }[] };
}
interface Rule { alert: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }

const dashboard = JSON.parse(readFileSync(join(root, 'deploy/grafana/tradebot.json'), 'utf8')) as Dashboard;
const alerts = parse(readFileSync(join(root, 'deploy/prometheus/alerts.yml'), 'utf8')) as { groups: { name: string; rules: Rule[] }[] };
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== 'row');
const rules = alerts.groups.flatMap((g) => g.rules);

describe('PromQL name extraction', () => {
  it('finds metric names and ignores functions, labels, keywords and variables', () => {
    expect(metricNamesIn('histogram_quantile(0.95, sum by (le, endpoint) (rate(a_bucket{x=~"$v",y="b c"}[$__rate_interval])))')).toEqual(['a_bucket']);
    expect(metricNamesIn('time() - b_seconds > 0.8 * c_seconds and on(market) d offset 5m')).toEqual(['b_seconds', 'c_seconds', 'd']);
    expect(metricNamesIn('absent(tradebot_build_info) or vector(0)')).toEqual(['tradebot_build_info']);
    expect(baseName('tradebot_exchange_request_duration_seconds_bucket', histograms)).toBe('tradebot_exchange_request_duration_seconds');
    expect(baseName('tradebot_exchange_requests_total', histograms)).toBe('tradebot_exchange_requests_total');
    expect(unknownNames(['sum(rate(tradebot_exchange_request_total[5m])) / up', 'tradebot_balance_bucket'])).toEqual(['tradebot_exchange_request_total', 'tradebot_balance_bucket']);
  });
});

describe('Grafana dashboard', () => {
  it('is a current-schema dashboard with datasource, market and strategy variables', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const vars = Object.fromEntries(dashboard.templating.list.map((v) => [v.name, v]));
    expect(vars['datasource']?.type).toBe('datasource');
    for (const name of ['market', 'strategy']) {
      const q = vars[name]?.query;
      const text = typeof q === 'string' ? q : q?.query ?? '';
      expect(text).toMatch(new RegExp(`^label_values\\(.+, ${name}\\)$`));
      expect(exported.has(labelValuesMetric(text) ?? '')).toBe(true);
    }
  });

  it('every panel has a query and uses only metrics tradebot exports (no dead panels)', () => {
    expect(panels.length).toBeGreaterThan(20);
    for (const p of panels) {
      const exprs = (p.targets ?? []).map((t) => t.expr);
      expect([p.title, exprs.length > 0]).toEqual([p.title, true]);
      expect([p.title, unknownNames(exprs)]).toEqual([p.title, []]);
    }
  });

  it('the trading-state and Redis stats map their numbers to words (value mappings)', () => {
    for (const [title, words] of [['Trading state', ['ACTIVE', 'REDUCE-ONLY', 'HALTED']], ['Redis up', ['DOWN', 'UP', 'MEMORY']], ['Ready', ['NOT READY', 'READY']]] as const) {
      const stat = panels.find((p) => p.type === 'stat' && p.title === title);
      const texts = (stat?.fieldConfig?.defaults?.mappings ?? []).flatMap((m) => Object.values(m.options).map((o) => o.text));
      expect([title, texts]).toEqual([title, [...words]]);
    }
  });

  it('shows every tradebot metric somewhere', () => {
    const used = new Set(panels.flatMap((p) => (p.targets ?? []).flatMap((t) => metricNamesIn(t.expr).map((n) => baseName(n, histograms)))));
    expect(METRIC_NAMES.filter((n) => !used.has(n))).toEqual([]);
  });
});

/** Labels every series gets from Prometheus (target labels), usable in any query. */
const TARGET_LABELS = new Set(['job', 'instance']);
const labelsOf = new Map<string, Set<string>>(Object.values(METRIC_DEFS).map((d) => [d.name, new Set<string>(d.labelNames)]));

/** Labels an expression groups or matches on that none of its tradebot metrics has (a typo, or a renamed label). */
function unknownLabels(expr: string): string[] {
  const names = metricNamesIn(expr).map((n) => baseName(n, histograms));
  const known = new Set<string>(TARGET_LABELS);
  for (const n of names) for (const l of labelsOf.get(n) ?? []) known.add(l);
  if (names.some((n) => histograms.has(n))) known.add('le');
  if (names.some((n) => !labelsOf.has(n))) return []; // process metrics and `up`: labels not tracked here
  return labelsUsedIn(expr).filter((l) => !known.has(l));
}

describe('metric naming conventions (docs/operations.md "Adding a metric")', () => {
  it('no label clashes with one Prometheus, a ServiceMonitor or a histogram sets itself, and every label has a documented domain', () => {
    for (const def of Object.values(METRIC_DEFS)) {
      expect([def.name, def.labelNames.filter((l) => RESERVED_LABELS.includes(l))]).toEqual([def.name, []]);
      expect([def.name, def.labelNames.filter((l) => LABEL_DOMAINS[l] === undefined)]).toEqual([def.name, []]);
    }
  });

  it('names: tradebot_ prefix; counters end in _total and nothing else does; units in the name', () => {
    for (const def of Object.values(METRIC_DEFS)) {
      expect(def.name).toMatch(/^tradebot_[a-z0-9_]+$/);
      expect([def.name, def.kind === 'counter']).toEqual([def.name, def.name.endsWith('_total')]);
      if (/timestamp/.test(def.name) || def.kind === 'histogram') expect(def.name).toMatch(/_seconds$/);
    }
  });

  it('every panel and alert groups and matches only on labels its metrics have', () => {
    const exprs = [...panels.flatMap((p) => (p.targets ?? []).map((t) => [`panel "${p.title}"`, t.expr] as const)),
      ...rules.map((r) => [`alert ${r.alert}`, r.expr] as const)];
    for (const [where, expr] of exprs) expect([where, unknownLabels(expr)]).toEqual([where, []]);
  });

  it('every metric has an alerting decision that matches alerts.yml both ways', () => {
    const byMetric = new Map<string, Set<string>>();
    for (const r of rules) for (const n of metricNamesIn(r.expr)) byMetric.set(baseName(n, histograms), new Set([...(byMetric.get(baseName(n, histograms)) ?? []), r.alert]));
    for (const [key, decision] of Object.entries(ALERT_DECISIONS) as [MetricKey, (typeof ALERT_DECISIONS)[MetricKey]][]) {
      const name = METRIC_DEFS[key].name;
      const actual = [...(byMetric.get(name) ?? [])].sort();
      if ('none' in decision) expect([name, decision.none.length > 10, actual]).toEqual([name, true, []]);
      else expect([name, actual]).toEqual([name, [...decision].sort()]);
    }
    expect(Object.keys(ALERT_DECISIONS).sort()).toEqual(Object.keys(METRIC_DEFS).sort());
  });

  it('docs/operations.md lists every metric with its type and labels, and every alert', () => {
    const doc = readFileSync(join(root, 'docs/operations.md'), 'utf8');
    for (const def of Object.values(METRIC_DEFS)) {
      const labels = def.labelNames.map((l) => `\`${l}\``).join(', ') || '—';
      expect([def.name, doc.includes(`| \`${def.name}\` | ${def.kind} | ${labels} |`)]).toEqual([def.name, true]);
    }
    for (const r of rules) expect([r.alert, doc.includes(r.alert)]).toEqual([r.alert, true]);
  });

  it('every alert has a promtool test case where it fires (deploy/prometheus/alerts.test.yml)', () => {
    const tests = parse(readFileSync(join(root, 'deploy/prometheus/alerts.test.yml'), 'utf8')) as {
      rule_files: string[]; tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[];
    };
    expect(tests.rule_files).toEqual(['alerts.yml']);
    const firing = new Set(tests.tests.flatMap((t) => t.alert_rule_test.filter((c) => c.exp_alerts.length > 0).map((c) => c.alertname)));
    expect(rules.map((r) => r.alert).filter((a) => !firing.has(a))).toEqual([]);
  });
});

describe('Prometheus alerts', () => {
  it('every rule is complete and uses only exported metrics (no alert that can never fire)', () => {
    expect(rules.length).toBeGreaterThan(10);
    for (const r of rules) {
      expect([r.alert, typeof r.expr, r.labels?.['severity']]).toEqual([r.alert, 'string', expect.stringMatching(/^(critical|warning)$/)]);
      expect([r.alert, r.annotations?.['summary'] !== undefined]).toEqual([r.alert, true]);
      expect([r.alert, unknownNames([r.expr])]).toEqual([r.alert, []]);
    }
  });

  it('covers the failure modes operators are paged for', () => {
    const byMetric = (name: string) => rules.filter((r) => metricNamesIn(r.expr).includes(name)).map((r) => r.alert);
    const required = [
      METRIC_DEFS.candleLag.name, METRIC_DEFS.rateLimited.name, METRIC_DEFS.nonceRejections.name,
      METRIC_DEFS.reconciliationDiscrepancies.name, METRIC_DEFS.exchangeRequests.name, METRIC_DEFS.redisUp.name,
      METRIC_DEFS.killSwitchRemaining.name, METRIC_DEFS.ready.name, METRIC_DEFS.tradingState.name, METRIC_DEFS.buildInfo.name, 'up',
    ];
    for (const name of required) expect([name, byMetric(name).length > 0]).toEqual([name, true]);
  });

  it('alert names are unique', () => {
    const names = rules.map((r) => r.alert);
    expect(new Set(names).size).toBe(names.length);
  });
});
