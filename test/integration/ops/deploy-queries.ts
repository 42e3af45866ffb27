import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { labelValuesMetric, metricNamesIn } from '../../helpers/promql-names';

/**
 * Every PromQL expression the operators' files evaluate, with where it comes from: the Grafana
 * dashboard's panel queries and variable queries, and the Prometheus alert rules.
 */
export interface DeployQuery {
  /** e.g. `panel "Candle lag"`, `variable market`, `alert TradebotRedisDown`. */
  readonly where: string;
  readonly expr: string;
}

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface Panel { type: string; title: string; targets?: { expr?: string }[]; panels?: Panel[] }
interface Dashboard { panels: Panel[]; templating: { list: { name: string; query?: string | { query?: string } }[] } }
interface Rules { groups: { rules: { alert?: string; record?: string; expr: string }[] }[] }

export function deployQueries(root = ROOT): DeployQuery[] {
  const dashboard = JSON.parse(readFileSync(path.join(root, 'deploy/grafana/tradebot.json'), 'utf8')) as Dashboard;
  const rules = parse(readFileSync(path.join(root, 'deploy/prometheus/alerts.yml'), 'utf8')) as Rules;
  const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== 'row');
  const out: DeployQuery[] = [];
  for (const p of panels) for (const t of p.targets ?? []) if (t.expr) out.push({ where: `panel "${p.title}"`, expr: t.expr });
  for (const v of dashboard.templating.list) {
    const q = typeof v.query === 'string' ? v.query : v.query?.query;
    const metric = q === undefined ? undefined : labelValuesMetric(q);
    if (metric !== undefined) out.push({ where: `variable ${v.name}`, expr: metric });
  }
  for (const g of rules.groups) for (const r of g.rules) out.push({ where: `alert ${r.alert ?? r.record ?? '?'}`, expr: r.expr });
  return out;
}

/** Metric name (as written in the query, e.g. `x_bucket`) -> the places that use it. */
export function metricUsers(queries: readonly DeployQuery[]): Map<string, string[]> {
  const users = new Map<string, string[]>();
  for (const q of queries) {
    for (const name of metricNamesIn(q.expr)) users.set(name, [...(users.get(name) ?? []), q.where]);
  }
  return users;
}
