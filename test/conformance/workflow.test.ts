// The editors' pipeline (.github/workflows/publish.yml): valid for GitHub Actions (action-validator checks it against
// the workflow schema), and doing what the README promises: on a change under content/, install, test, build for
// the production origin, upload dist/client with its cache rules, invalidate the CDN.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/env.ts';

const file = join(projectRoot, '.github/workflows/publish.yml');
const workflow = parse(readFileSync(file, 'utf8')) as {
  on: { push: { branches: string[]; paths: string[] } };
  jobs: Record<string, { steps: { name?: string; uses?: string; run?: string; env?: Record<string, string> }[] }>;
};

describe('.github/workflows/publish.yml', () => {
  it('passes action-validator (the GitHub Actions workflow schema)', () => {
    const r = spawnSync(join(projectRoot, 'node_modules/.bin/action-validator'), [file], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it('runs on a push to main that changes content/', () => {
    expect(workflow.on.push.branches).toEqual(['main']);
    expect(workflow.on.push.paths).toContain('content/**');
  });

  it('installs, tests, builds with the production BASE_URL, uploads dist/client with cache rules, then invalidates', () => {
    const job = Object.values(workflow.jobs)[0]!;
    const runs = job.steps.map((s) => s.run ?? '');
    const index = (pattern: RegExp) => runs.findIndex((r) => pattern.test(r));
    const order = [/^npm install$/m, /^npm test$/m, /^npm run build$/m, /aws s3 sync dist\/client/, /cloudfront create-invalidation/].map(index);
    expect(order.every((i) => i >= 0), String(order)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The production origin reaches the build, and only the build (the tests build for their own).
    expect(job.steps[order[2]!]?.env?.BASE_URL).toBe('${{ vars.BASE_URL }}');
    expect(job.steps.filter((s) => s.env?.BASE_URL)).toHaveLength(1);
    const upload = runs[order[3]!]!;
    expect(upload).toContain("--cache-control 'public, max-age=31536000, immutable'");
    expect(upload).toContain("--content-type 'text/markdown; charset=utf-8'");
    expect(upload).toMatch(/--exclude '\*\.gz' --exclude '\*\.br'/);
  });
});
