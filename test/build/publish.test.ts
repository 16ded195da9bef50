// Publishing (scripts/publish.ts, src/lib/publishing/plan.ts): the plan on its own, then two real builds published in
// turn to a temporary folder standing in for the bucket. Assets go up before the pages that use them and stay a day
// after the last page that used them; pages and twins go up together; what the build dropped is deleted; only the URLs
// whose bytes changed or disappeared are invalidated, never a fingerprinted asset.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderBucket, publish, type Bucket } from '../../scripts/publish.ts';
import { filesUnder } from '../../src/lib/files.ts';
import {
  isFingerprinted,
  MANIFEST_KEY,
  publishPlan,
  RETAIN_MS,
  type PublishManifest,
} from '../../src/lib/publishing/plan.ts';
import { cleanEnv, projectRoot } from '../helpers/env.ts';

describe('the plan', () => {
  const manifest = (files: Record<string, string>, retired?: Record<string, string>): PublishManifest => ({
    version: 1,
    files,
    ...(retired ? { retired } : {}),
  });
  const before = manifest({
    'index.html': 'a',
    'index.md': 'a',
    'en/blog/x.html': 'x',
    'en/blog/x.md': 'x',
    'en/blog/gone.html': 'g',
    'en/blog/gone.md': 'g',
    '_astro/old.svg': 'o',
    'robots.txt': 'r',
  });
  const after = manifest({
    'index.html': 'a',
    'index.md': 'a',
    'en/blog/x.html': 'x2',
    'en/blog/x.md': 'x2',
    'en/blog/new.html': 'n',
    'en/blog/new.md': 'n',
    '_astro/new.svg': 'n',
    'robots.txt': 'r',
  });
  const now = new Date('2026-11-24T12:00:00Z');

  it('uploads new assets first, then changed and new pages with their twins, deletes dropped pages and their twins', () => {
    const plan = publishPlan(after, before, now);
    expect(plan.uploadAssets).toEqual(['_astro/new.svg']);
    expect(plan.uploadPages).toEqual(['en/blog/new.html', 'en/blog/new.md', 'en/blog/x.html', 'en/blog/x.md']);
    expect(plan.deletePages).toEqual(['en/blog/gone.html', 'en/blog/gone.md']);
  });

  it('invalidates exactly the URLs whose bytes changed or disappeared (a twin’s page URL too), no new one, no asset', () => {
    expect(publishPlan(after, before, now).invalidate).toEqual([
      '/en/blog/gone',
      '/en/blog/gone.md',
      '/en/blog/x',
      '/en/blog/x.md',
    ]);
    expect(publishPlan(before, before, now).invalidate).toEqual([]);
    expect(publishPlan(after, undefined, now).invalidate).toEqual([]);
    expect(publishPlan(manifest({ 'index.md': 'b' }), manifest({ 'index.md': 'a' }), now).invalidate).toEqual([
      '/',
      '/index.md',
    ]);
  });

  it('keeps an asset the build dropped for a day, then deletes it; one that comes back is no longer retired', () => {
    const first = publishPlan(after, before, now);
    expect(first.manifest.retired).toEqual({ '_astro/old.svg': now.toISOString() });
    expect(first.deleteAssets).toEqual([]);
    const soon = publishPlan(after, first.manifest, new Date(now.getTime() + RETAIN_MS - 1));
    expect([soon.deleteAssets, soon.manifest.retired]).toEqual([[], first.manifest.retired]);
    const later = publishPlan(after, first.manifest, new Date(now.getTime() + RETAIN_MS));
    expect([later.deleteAssets, later.manifest.retired]).toEqual([['_astro/old.svg'], {}]);
    const back = publishPlan(
      manifest({ ...after.files, '_astro/old.svg': 'o' }),
      first.manifest,
      new Date(now.getTime() + RETAIN_MS),
    );
    expect([back.deleteAssets, back.manifest.retired]).toEqual([[], {}]);
  });

  it('caches fingerprinted assets for a year and everything else by its declared rule', () => {
    const plan = publishPlan(after, before, now);
    expect(plan.cacheControl('_astro/new.svg')).toBe('public, max-age=31536000, immutable');
    expect(plan.cacheControl('en/blog/x.html')).toBe('public, max-age=300');
    expect(plan.cacheControl('robots.txt')).toBe('public, max-age=3600');
    expect(isFingerprinted('pagefind/en/fragment/en_1a2b.pf_fragment')).toBe(true);
    expect(isFingerprinted('pagefind/ar/index/ar_1a2b.pf_index')).toBe(true);
    expect(isFingerprinted('pagefind/ar/pagefind.ar_1a2b.pf_meta')).toBe(true);
    expect(isFingerprinted('pagefind/en/pagefind-entry.json')).toBe(false);
    expect(isFingerprinted('pagefind/en/pagefind.js')).toBe(false);
  });
});

describe('two builds published in turn to a folder', () => {
  let dir: string;
  let bucketDir: string;
  const builds: string[] = [];
  const calls: string[] = [];
  let invalidated: string[] = [];
  let bucket: Bucket;

  const build = (name: string) => {
    const result = spawnSync(
      process.execPath,
      [join(projectRoot, 'node_modules/astro/bin/astro.mjs'), 'build', '--outDir', join(dir, name)],
      { cwd: dir, env: cleanEnv({}), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    expect(result.status, result.stdout.slice(-2000) + result.stderr.slice(-2000)).toBe(0);
    builds.push(join(dir, name));
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'publish-'));
    for (const entry of ['src', 'content', 'public', 'astro.config.mjs', 'package.json', 'tsconfig.json'])
      cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
    symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
    build('first');
    // The second build: one article edited (its text only), one removed.
    const edited = join(dir, 'content/blog/en/link-in-bio-that-works.md');
    // (Its link to the removed article goes too: the content checks would refuse the build.)
    const text = readFileSync(edited, 'utf8').replace(
      'They give the page a few seconds.',
      'They give the page a few seconds, no more.',
    );
    writeFileSync(edited, text.replace(/\[([^[\]]+)\]\(\/en\/blog\/how-ai-agents-read-this-site\)/g, '$1'));
    rmSync(join(dir, 'content/blog/en/how-ai-agents-read-this-site.md'));
    build('second');
    bucketDir = mkdtempSync(join(tmpdir(), 'bucket-'));
    const folder = folderBucket(bucketDir);
    bucket = {
      ...folder,
      upload: (from, files, headers) => (
        files.forEach((f) => calls.push(`upload ${f}`)),
        folder.upload(from, files, headers)
      ),
      remove: (keys) => (keys.forEach((k) => calls.push(`remove ${k}`)), folder.remove(keys)),
    };
  }, 240_000);
  afterAll(() => {
    for (const folder of [dir, bucketDir]) if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const clientFiles = (build: string) => filesUnder(join(build, 'client')).filter((f) => !/\.(gz|br)$/.test(f));
  const bucketFiles = () => filesUnder(bucketDir).filter((f) => f !== MANIFEST_KEY);
  const silent = () => undefined;

  it('publishes the first build whole, and invalidates nothing', () => {
    publish(builds[0]!, bucket, (urls) => (invalidated = urls), new Date('2026-11-24T12:00:00Z'), silent);
    expect(bucketFiles().sort()).toEqual(clientFiles(builds[0]!).sort());
    expect(invalidated).toEqual([]);
    expect(existsSync(join(bucketDir, MANIFEST_KEY))).toBe(true);
  });

  it('then the second: assets first, the edit and what the removal touched, the removed page and its twin deleted', () => {
    calls.length = 0;
    publish(builds[1]!, bucket, (urls) => (invalidated = urls), new Date('2026-11-24T13:00:00Z'), silent);
    // The pages and twins of the second build, and the first build's assets, kept for pages still cached.
    const first = new Set(clientFiles(builds[0]!));
    const second = clientFiles(builds[1]!);
    const retiredAssets = [...first].filter((f) => isFingerprinted(f) && !second.includes(f));
    expect(retiredAssets.length).toBeGreaterThan(0);
    expect(bucketFiles().sort()).toEqual([...second, ...retiredAssets].sort());
    expect(existsSync(join(bucketDir, 'en/blog/how-ai-agents-read-this-site.html'))).toBe(false);
    expect(existsSync(join(bucketDir, 'en/blog/how-ai-agents-read-this-site.md'))).toBe(false);
    // Every new asset is uploaded before the first page.
    const firstPage = calls.findIndex((c) => c.startsWith('upload ') && !isFingerprinted(c.slice(7)));
    const lastAsset = calls.findLastIndex((c) => c.startsWith('upload ') && isFingerprinted(c.slice(7)));
    expect(lastAsset).toBeLessThan(firstPage);
    // Unchanged pages are not uploaded again.
    expect(calls).not.toContain('upload en/blog/qr-or-nfc-business-card.html');
    // Invalidated: the edited article and its twin, the removed one, the lists, feeds and sitemap it was in; nothing
    // fingerprinted, nothing unchanged (the Arabic blog did not change).
    for (const url of [
      '/en/blog/link-in-bio-that-works',
      '/en/blog/link-in-bio-that-works.md',
      '/en/blog/how-ai-agents-read-this-site',
      '/en/blog/how-ai-agents-read-this-site.md',
      '/en/blog',
      '/en/blog.md',
      '/en/blog/rss.xml',
      '/en/blog/feed.json',
      '/en/blog/topics/mcp',
      '/sitemap.xml',
      '/blog/articles.json',
    ]) {
      expect(invalidated, url).toContain(url);
    }
    expect(
      invalidated.filter((u) => u.startsWith('/_astro/') || /^\/pagefind\/[^/]+\/(fragment|index)\//.test(u)),
    ).toEqual([]);
    expect(invalidated.filter((u) => u.startsWith('/ar/') || u.startsWith('/pagefind/ar/'))).toEqual([]);
    expect(invalidated).not.toContain('/en/blog/qr-or-nfc-business-card');
  });

  it('deletes the retired assets a day later, once no cached page can use them', () => {
    const retired = Object.keys(
      (JSON.parse(readFileSync(join(bucketDir, MANIFEST_KEY), 'utf8')) as PublishManifest).retired ?? {},
    );
    expect(retired.length).toBeGreaterThan(0);
    invalidated = [];
    publish(
      builds[1]!,
      bucket,
      (urls) => (invalidated = urls),
      new Date(Date.parse('2026-11-24T13:00:00Z') + RETAIN_MS),
      silent,
    );
    expect(bucketFiles().sort()).toEqual(clientFiles(builds[1]!).sort());
    expect(invalidated).toEqual([]);
  });
});
