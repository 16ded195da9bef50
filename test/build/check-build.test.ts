// `npm run check:build` on the test build (no problem) and on a copy broken in each way it looks for: every mistake
// named with its file, and a non-zero exit. A fragment written raw or percent-encoded reaches an Arabic heading alike.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLinks } from '../../src/lib/publishing/link-check.ts';
import { cleanEnv, distDir, projectRoot } from '../helpers/env.ts';

const temps: string[] = [];
afterAll(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const run = (dist: string) =>
  spawnSync(process.execPath, [join(projectRoot, 'scripts/check-build.ts'), dist], {
    env: cleanEnv(),
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });

function brokenCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'check-build-'));
  temps.push(dir);
  cpSync(distDir, dir, {
    recursive: true,
    filter: (src) => !/\.(br|gz)$/.test(src) && !src.startsWith(join(distDir, 'server')),
  });
  const edit = (file: string, change: (text: string) => string) =>
    writeFileSync(join(dir, 'client', file), change(readFileSync(join(dir, 'client', file), 'utf8')));
  edit('en/blog/what-your-public-page-reveals.html', (html) =>
    html
      .replace('href="/en/blog/topics/privacy"', 'href="/en/blog/topics/privasy"')
      .replace(
        '</main>',
        '<p><a href="#no-such-heading">x</a> <img src="/_astro/missing.png" alt="x" width="1" height="1"></p></main>',
      ),
  );
  edit('en/blog/rss.xml', (xml) => xml.replace(/<pubDate>[^<]+<\/pubDate>/, '<pubDate>2026-11-10</pubDate>'));
  edit('ar/blog/feed.json', () => '{"version": "1"}');
  edit('en/blog/topics.html', (html) => html.replace('<main id="content">', '<main id="content"></span>'));
  rmSync(join(dir, 'client/ar/blog/topics.md'));
  return dir;
}

describe('npm run check:build', () => {
  it('finds no problem in the build', () => {
    const result = run(distDir);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('The build has no problem.');
  }, 120_000);

  it('names every broken link, fragment, image, twin, feed and page at once, and fails', () => {
    const result = run(brokenCopy());
    expect(result.status).toBe(1);
    const expected = [
      /en\/blog\/what-your-public-page-reveals\.html: <a href="\/en\/blog\/topics\/privasy"> leads nowhere/,
      /en\/blog\/what-your-public-page-reveals\.html: <a href="#no-such-heading">: .* has no element with id "no-such-heading"/,
      /en\/blog\/what-your-public-page-reveals\.html: <img src="\/_astro\/missing\.png"> leads nowhere/,
      /ar\/blog\/topics\.html: no Markdown twin/,
      /\/en\/blog\/rss\.xml: .*pubDate/,
      /\/ar\/blog\/feed\.json: not a JSON Feed 1\.1/,
      /en\/blog\/topics\.html:\d+: Stray end tag “span”/,
    ];
    for (const pattern of expected) expect(result.stderr, String(pattern)).toMatch(pattern);
  }, 120_000);

  it('reaches an Arabic heading by its fragment raw or percent-encoded, and misses a wrong one either way', () => {
    const dir = brokenCopy();
    const file = join(dir, 'client/ar/blog/dalil-safhat-alrawabit.html');
    const id = 'ابدأ-من-الزائر-لا-من-حساباتك';
    expect(readFileSync(file, 'utf8')).toContain(`id="${id}"`);
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        '</main>',
        `<p><a href="#${encodeURIComponent(id)}">a</a> <a href="/ar/blog/dalil-safhat-alrawabit#${id}">b</a> <a href="#${encodeURIComponent('ابدأ')}">c</a></p></main>`,
      ),
    );
    const problems = checkLinks(join(dir, 'client'), 'http://localhost:8080').filter((p) =>
      p.startsWith('ar/blog/dalil'),
    );
    expect(problems).toEqual([
      `ar/blog/dalil-safhat-alrawabit.html: <a href="#${encodeURIComponent('ابدأ')}">: ar/blog/dalil-safhat-alrawabit.html has no element with id "ابدأ"`,
    ]);
  });
});
