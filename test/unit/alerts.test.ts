// The alert rules (issue 64): deploy/prometheus/alerts.yml is rules Prometheus loads (promtool check rules), each
// alert fires on the condition it names and none on an idle, healthy site (promtool test rules, with the series in
// deploy/prometheus/alerts.test.yml), and no alert goes untested.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../helpers/env.ts';

const folder = join(projectRoot, 'deploy/prometheus');
const promtool = (...args: string[]) => {
  const r = spawnSync('promtool', args, { cwd: folder, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
};

interface RuleTest {
  alert_rule_test: { alertname: string; exp_alerts: unknown[] }[];
}

describe('the alert rules', () => {
  it('load in Prometheus', () => {
    const checked = promtool('check', 'rules', 'alerts.yml');
    expect(checked.status, checked.out).toBe(0);
  });

  it('fire on what they name and on nothing else, as their tests say', () => {
    const tested = promtool('test', 'rules', 'alerts.test.yml');
    expect(tested.status, tested.out).toBe(0);
  });

  it('are each tested firing, and quiet on the idle site', () => {
    const rules = parse(readFileSync(join(folder, 'alerts.yml'), 'utf8')) as {
      groups: { rules: { alert: string }[] }[];
    };
    const names = rules.groups.flatMap((g) => g.rules.map((r) => r.alert));
    const tests = (parse(readFileSync(join(folder, 'alerts.test.yml'), 'utf8')) as { tests: RuleTest[] }).tests;
    const [idle, ...rest] = tests;
    expect(
      idle!.alert_rule_test
        .filter((t) => t.exp_alerts.length === 0)
        .map((t) => t.alertname)
        .sort(),
    ).toEqual([...names].sort());
    const firing = new Set(
      rest.flatMap((t) => t.alert_rule_test.filter((c) => c.exp_alerts.length > 0).map((c) => c.alertname)),
    );
    expect([...firing].sort()).toEqual([...names].sort());
  });
});
