// Builds a copy of the project with extra articles: drafts must not be published, bad front matter must fail loudly.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, projectRoot } from '../helpers/env.ts';

const temps: string[] = [];
afterAll(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function projectCopy(articles: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'bio-build-'));
  temps.push(dir);
  for (const entry of ['src', 'content', 'public', 'astro.config.mjs', 'package.json', 'tsconfig.json']) {
    cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
  }
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  for (const [path, text] of Object.entries(articles)) writeFileSync(join(dir, 'content/blog', path), text);
  return dir;
}

function build(dir: string) {
  const result = spawnSync(join(projectRoot, 'node_modules/.bin/astro'), ['build'], {
    cwd: dir,
    env: cleanEnv(),
    encoding: 'utf8',
  });
  return { status: result.status, output: result.stdout + result.stderr };
}

const article = (front: string) => `---\n${front}\n---\n\nBody text that is long enough to be an article.\n`;

// One build of a copy with a draft and a scheduled article: it succeeds, and publishes neither.
describe('content validation at build time: what is built, and what is not yet', () => {
  const ahead = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
  let dir: string;
  let result: { status: number | null; output: string };
  beforeAll(() => {
    dir = projectCopy({
      'en/secret-plans.md': article(
        'title: Secret plans\ndescription: Not ready to be read by anyone yet.\ndate: 2026-11-20\ndraft: true',
      ),
      'en/coming-soon.md': article(
        `title: Coming soon\ndescription: An article that appears next week, not before.\ndate: ${ahead}`,
      ),
    });
    result = build(dir);
  }, 120_000);

  it('never publishes a draft: no page, no twin, not in the index, the feed or the sitemap', () => {
    expect(result.status, result.output).toBe(0);
    const client = join(dir, 'dist/client');
    expect(existsSync(join(client, 'en/blog/secret-plans.html'))).toBe(false);
    expect(existsSync(join(client, 'en/blog/secret-plans.md'))).toBe(false);
    expect(existsSync(join(client, 'en/blog.html'))).toBe(true);
    for (const file of ['en/blog.html', 'en/blog/rss.xml', 'sitemap.xml', 'llms.txt']) {
      expect(readFileSync(join(client, file), 'utf8'), file).not.toContain('secret-plans');
    }
  });

  it("says what is scheduled, with the day and hour in the blog's zone, and does not publish it before then", () => {
    expect(result.status, result.output).toBe(0);
    expect(result.output).toContain(`content/blog/en/coming-soon.md: appears on ${ahead} 00:00 Asia/Riyadh`);
    const client = join(dir, 'dist/client');
    expect(existsSync(join(client, 'en/blog/coming-soon.html'))).toBe(false);
    expect(readFileSync(join(client, 'en/blog/feed.json'), 'utf8')).not.toContain('coming-soon');
  });
});

// Astro's schema stops at the first entry that does not match it: each mistake is a build of its own.
describe('content validation at build time: mistakes', () => {
  it('fails the build and names the file when front matter is invalid', () => {
    const { status, output } = build(
      projectCopy({
        'ar/bad-date.md': article('title: عنوان\ndescription: وصف قصير لكنه أطول من عشرين حرفًا\ndate: not-a-date'),
      }),
    );
    expect(status).not.toBe(0);
    expect(output).toMatch(/bad-date/);
    expect(output).toMatch(/date/i);
  });

  it('fails the build when an article misses a required field', () => {
    const { status, output } = build(
      projectCopy({
        'en/no-title.md': article('description: An article that forgot its title entirely.\ndate: 2026-01-01'),
      }),
    );
    expect(status).not.toBe(0);
    expect(output).toMatch(/no-title/);
    expect(output).toMatch(/title/);
  });

  // An operator's review: Astro's own schema check (when it syncs the content) stopped the build at the first article
  // it could not take, naming no line (`:0:0`), before the project's checks ran; a mistake it does not check (a date
  // off the calendar) was left for the next build.
  it('lists every mistake of every article in one build, each with its line', () => {
    const { status, output } = build(
      projectCopy({
        'en/three-mistakes.md': article('title: Three\ndescription: Too short.\ndate: 2026-02-30\ntopics: [wearables]'),
        'en/another.md': article('title: Another\ndescription: Short too.\ndate: 2026-01-01'),
      }),
    );
    expect(status).not.toBe(0);
    for (const line of [
      /content\/blog\/en\/three-mistakes\.md:3: description: /,
      /content\/blog\/en\/three-mistakes\.md:4: date: "2026-02-30" is not on the calendar/,
      /content\/blog\/en\/three-mistakes\.md:5: topics: unknown topic "wearables"/,
      /content\/blog\/en\/another\.md:3: description: /,
    ])
      expect(output).toMatch(line);
    expect(output).not.toMatch(/InvalidContentEntryDataError|:0:0/);
  });

  // Issue 31: month 13 rolled over into next January, and the article was built as scheduled and never shown.
  it('fails the build on a date that is not on the calendar, naming the file, the value as written and how to write one', () => {
    const { status, output } = build(
      projectCopy({
        'ar/month-13.md': article('title: عنوان\ndescription: وصف قصير لكنه أطول من عشرين حرفًا\ndate: 2026-13-01'),
      }),
    );
    expect(status).not.toBe(0);
    expect(output).toMatch(
      /content\/blog\/ar\/month-13\.md:4: date: "2026-13-01" is not on the calendar: there is no month 13/,
    );
    expect(output).toMatch(/write it like 2026-09-14/);
  });
});
