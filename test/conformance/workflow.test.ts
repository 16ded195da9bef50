// The publish pipeline (.github/workflows/publish.yml): valid for GitHub Actions (action-validator checks it against
// the workflow schema), and doing what the README promises: on every push to main and every hour, tell a content-only
// change from a code change (scripts/change-kind.ts), run the whole suite only for code, build for the production
// origin, check the build, and publish with scripts/publish.ts (tested in test/build/publish.test.ts).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { changeKind } from '../../scripts/change-kind.ts';
import { projectRoot } from '../helpers/env.ts';

const file = join(projectRoot, '.github/workflows/publish.yml');
const workflow = parse(readFileSync(file, 'utf8')) as {
  on: { push: { branches: string[]; paths?: string[] }; schedule: { cron: string }[] };
  jobs: Record<
    string,
    {
      steps: {
        name?: string;
        id?: string;
        if?: string;
        uses?: string;
        run?: string;
        env?: Record<string, string>;
        with?: Record<string, string>;
      }[];
    }
  >;
};
const job = Object.values(workflow.jobs)[0]!;
const runs = job.steps.map((s) => s.run ?? '');
const index = (pattern: RegExp) => runs.findIndex((r) => pattern.test(r));

describe('.github/workflows/publish.yml', () => {
  it('passes action-validator (the GitHub Actions workflow schema)', () => {
    const r = spawnSync(join(projectRoot, 'node_modules/.bin/action-validator'), [file], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it('runs on every push to main, and on a schedule so that scheduled articles appear', () => {
    expect(workflow.on.push.branches).toEqual(['main']);
    expect(workflow.on.push.paths).toBeUndefined();
    expect(workflow.on.schedule[0]?.cron).toMatch(/^\d+ \* \* \* \*$/);
  });

  it('runs the whole suite for a code change only; a content change gets the tools of the checks', () => {
    const test = job.steps.find((s) => s.run === 'npm run setup && npm test');
    expect(test?.if).toBe("steps.change.outputs.kind == 'code'");
    const tools = job.steps.find((s) => s.run === 'bash scripts/system-packages.sh --content');
    expect(tools?.if).toBe("steps.change.outputs.kind == 'content'");
    const change = job.steps.find((s) => s.id === 'change');
    expect(change?.run).toContain('node scripts/change-kind.ts');
  });

  it('tells a change under content/ from any other (and a scheduled rebuild is content)', () => {
    expect(changeKind(['content/blog/en/new.md'])).toBe('content');
    expect(changeKind(['content/blog/en/a.md', 'content/blog/topics.json', 'content/blog/images/x.svg'])).toBe(
      'content',
    );
    expect(changeKind(['content/blog/en/a.md', 'src/lib/blog/articles.ts'])).toBe('code');
    expect(changeKind(['package-lock.json'])).toBe('code');
    expect(changeKind(['contents.md'])).toBe('code');
    expect(changeKind([])).toBe('content');
    const viaCli = spawnSync(process.execPath, [join(projectRoot, 'scripts/change-kind.ts')], {
      input: 'content/blog/ar/x.md\nREADME.md\n',
      encoding: 'utf8',
    });
    expect(viaCli.stdout.trim()).toBe('code');
  });

  it('installs, builds with the production BASE_URL, checks the build, then publishes with the plan (no blanket sync or /*)', () => {
    const order = [
      /^npm install$/m,
      /^npm run build$/m,
      /^npm run check:build$/m,
      /^npm run publish:site -- --bucket "s3:\/\/\$\{\{ vars\.S3_BUCKET \}\}" --distribution/m,
    ].map(index);
    expect(
      order.every((i) => i >= 0),
      String(order),
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The production origin reaches the build, and only the build (the tests build for their own).
    expect(job.steps[order[1]!]?.env?.BASE_URL).toBe('${{ vars.BASE_URL }}');
    expect(job.steps.filter((s) => s.env?.BASE_URL)).toHaveLength(1);
    expect(runs.join('\n')).not.toMatch(/aws s3 sync|--paths '\/\*'/);
    // Publishing is the AWS SDK's (issue 40): no step installs or runs a program for it.
    expect(runs.join('\n')).not.toMatch(/\bawscli\b|^aws /m);
  });

  it('keeps the image caches between runs, restored after the install', () => {
    const cache = job.steps.findIndex((s) => s.uses?.startsWith('actions/cache@'));
    expect(cache).toBeGreaterThan(index(/^npm install$/m));
    expect(job.steps[cache]?.with?.path).toBe('.cache');
  });
});

describe('.github/workflows/ci.yml', () => {
  const ci = join(projectRoot, '.github/workflows/ci.yml');
  const workflow = parse(readFileSync(ci, 'utf8')) as {
    on: Record<string, unknown>;
    jobs: Record<string, { container?: string; steps: { run?: string }[] }>;
  };
  const job = Object.values(workflow.jobs)[0]!;

  it('passes action-validator (the GitHub Actions workflow schema)', () => {
    const r = spawnSync(join(projectRoot, 'node_modules/.bin/action-validator'), [ci], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it("runs on every push and pull request, on the machine kind, the README's test command and then the soak, as .ci/run does", () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
    expect(job.container).toBe('debian:12');
    const runs = job.steps.flatMap((s) => (s.run ? [s.run] : []));
    const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
    const command = /^npm install && npm run setup && npm test/m.exec(readme)?.[0];
    expect(command).toBeDefined();
    expect(runs[0]).toContain('npm run setup && npm test');
    expect(runs[1]).toBe('npm run bench -- --soak --duration 5');
    const local = readFileSync(join(projectRoot, '.ci/run'), 'utf8');
    expect(local).toContain('npm run setup && npm test');
    expect(local).toContain('npm run bench -- --soak --duration 5');
  });
});
