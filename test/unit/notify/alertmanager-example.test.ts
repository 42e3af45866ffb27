import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * deploy/alertmanager/alertmanager.yml: every shipped alert (deploy/prometheus/alerts.yml) is routed
 * to a receiver with a chat behind it, and no secret is written inline (only *_file fields). amtool is
 * not on the test machines; its own check is in the file's header for the operator's copy.
 */
const root = join(__dirname, '../../..');
interface Route { receiver?: string; matchers?: string[]; routes?: Route[] }
interface Receiver { name: string; [kind: string]: unknown }
const am = parse(readFileSync(join(root, 'deploy/alertmanager/alertmanager.yml'), 'utf8')) as { route: Route; receivers: Receiver[] };
const alerts = parse(readFileSync(join(root, 'deploy/prometheus/alerts.yml'), 'utf8')) as { groups: { rules: { alert: string; labels: Record<string, string> }[] }[] };

/** The first child route whose matchers (= and =~ only) all match, as Alertmanager picks it (continue: false). */
function receiverFor(labels: Record<string, string>, route: Route = am.route): string | undefined {
  for (const child of route.routes ?? []) {
    const matches = (child.matchers ?? []).every((m) => {
      const [, name = '', op, value = ''] = /^(\w+)(=~|=)"(.*)"$/.exec(m) ?? [];
      const actual = labels[name] ?? '';
      return op === '=' ? actual === value : new RegExp(`^(?:${value})$`).test(actual);
    });
    if (matches) return receiverFor(labels, child) ?? child.receiver;
  }
  return route.receiver;
}

describe('the Alertmanager example', () => {
  const receivers = new Map(am.receivers.map((r) => [r.name, r]));

  test('every shipped alert reaches a receiver; critical ones also reach Telegram', () => {
    const rules = alerts.groups.flatMap((g) => g.rules);
    expect(rules.length).toBeGreaterThan(10);
    for (const rule of rules) {
      const name = receiverFor({ alertname: rule.alert, ...rule.labels });
      const receiver = name === undefined ? undefined : receivers.get(name);
      expect([rule.alert, receiver !== undefined]).toEqual([rule.alert, true]);
      const kinds = Object.keys(receiver ?? {}).filter((k) => k.endsWith('_configs'));
      expect([rule.alert, kinds.length > 0]).toEqual([rule.alert, true]);
      if (rule.labels['severity'] === 'critical') expect([rule.alert, kinds.sort()]).toEqual([rule.alert, ['discord_configs', 'slack_configs', 'telegram_configs']]);
    }
  });

  test('secrets only from files: no inline URL or token', () => {
    for (const r of am.receivers) {
      for (const [kind, configs] of Object.entries(r).filter(([k]) => k.endsWith('_configs'))) {
        for (const c of configs as Record<string, unknown>[]) {
          expect([r.name, kind, Object.keys(c).filter((k) => ['api_url', 'webhook_url', 'bot_token', 'url'].includes(k))]).toEqual([r.name, kind, []]);
          expect([r.name, kind, Object.keys(c).some((k) => k.endsWith('_file'))]).toEqual([r.name, kind, true]);
        }
      }
    }
    expect(readFileSync(join(root, 'deploy/alertmanager/alertmanager.yml'), 'utf8')).not.toMatch(/hooks\.slack\.com|discord(app)?\.com\/api\/webhooks|\d+:[A-Za-z0-9_-]{30,}/);
  });
});
