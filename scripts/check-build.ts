// `npm run check:build [-- DIST]`: what readers and agents would meet in a finished build, checked before it is
// published (the publish workflow runs it on the production build, content-only changes included): every internal link,
// image and #fragment lands (src/lib/publishing/link-check.ts), every page has its Markdown twin, the sitemap and the
// RSS feeds are valid against their schemas, the JSON Feeds are JSON Feed 1.1, and every page passes the Nu HTML
// Checker (pages it found valid before, byte for byte, are not checked again). Lists every problem, exits 1 if there is
// one. Needs xmllint and Java (scripts/system-packages.sh --content).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { filesUnder } from '../src/lib/files.ts';
import { checkLinks, missingTwins } from '../src/lib/publishing/link-check.ts';
import { LANGS } from '../src/lib/locales.ts';
import { pathOf } from '../src/lib/surface.ts';
import { readManifest } from '../src/lib/build-manifest.ts';
import { vnuParallel, xmllintRss, xmllintSitemap } from './validators.ts';
import { buildCacheDir, codeHash, keyOf } from '../src/integrations/build-cache.ts';
import { projectRoot } from './ensure-build.ts';

export async function checkBuild(distDir: string, log = (line: string) => console.log(line)): Promise<string[]> {
  const client = join(distDir, 'client');
  const manifest = readManifest(distDir);
  if (!manifest) return [`${distDir}: no build here (run npm run build)`];
  const { baseUrl } = manifest;
  const problems: string[] = [];
  const step = async (what: string, run: () => string[] | Promise<string[]>) => {
    const started = performance.now();
    const found = await run();
    problems.push(...found);
    log(
      `${what}: ${found.length === 0 ? 'ok' : `${found.length} problem${found.length === 1 ? '' : 's'}`} (${Math.round(performance.now() - started)} ms)`,
    );
  };
  await step('links, images and fragments', () => checkLinks(client, baseUrl));
  await step('Markdown twins', () => missingTwins(client));
  await step('sitemap against the sitemaps.org schema', () => {
    const result = xmllintSitemap(readFileSync(join(client, pathOf('getSitemap')), 'utf8'));
    return result.ok ? [] : [`sitemap.xml: ${result.output.trim()}`];
  });
  await step('feeds', () =>
    LANGS.flatMap((lang) => {
      const found: string[] = [];
      const rss = xmllintRss(readFileSync(join(client, pathOf('getBlogFeed', { lang })), 'utf8'));
      if (!rss.ok) found.push(`${pathOf('getBlogFeed', { lang })}: ${rss.output.trim()}`);
      try {
        const feed = JSON.parse(readFileSync(join(client, pathOf('getBlogJsonFeed', { lang })), 'utf8')) as {
          version?: unknown;
          title?: unknown;
          items?: { id?: unknown; content_text?: unknown; content_html?: unknown }[];
        };
        if (
          feed.version !== 'https://jsonfeed.org/version/1.1' ||
          typeof feed.title !== 'string' ||
          !Array.isArray(feed.items)
        )
          found.push(
            `${pathOf('getBlogJsonFeed', { lang })}: not a JSON Feed 1.1 (version, title and items are required)`,
          );
        for (const item of feed.items ?? [])
          if (typeof item.id !== 'string' || (item.content_text === undefined && item.content_html === undefined))
            found.push(`${pathOf('getBlogJsonFeed', { lang })}: an item without id or content`);
      } catch (err) {
        found.push(`${pathOf('getBlogJsonFeed', { lang })}: ${(err as Error).message}`);
      }
      return found;
    }),
  );
  await step('HTML (Nu HTML Checker)', async () => {
    // Pages checked before with the same bytes by the same checker are not checked again (a rebuild after one edit
    // restores thousands of identical pages): a marker per valid page in the build cache.
    const cacheDir = buildCacheDir(projectRoot, 'html-valid');
    const code = codeHash(projectRoot, []);
    const pages = filesUnder(client)
      .filter((f) => f.endsWith('.html'))
      .map((f) => ({ file: join(client, f), marker: join(cacheDir, keyOf(code, readFileSync(join(client, f)))) }));
    const unchecked = pages.filter((p) => !existsSync(p.marker));
    const errors = (await vnuParallel(unchecked.map((p) => p.file))).filter(
      (m) => m.type === 'error' || m.subType === 'fatal',
    );
    const failed = new Set(errors.map((m) => resolve(m.url.replace(/^file:/, ''))));
    for (const page of unchecked) if (!failed.has(page.file)) writeFileSync(page.marker, '');
    log(`  ${pages.length - unchecked.length} of ${pages.length} pages known valid, ${unchecked.length} checked`);
    return errors.map((m) => `${relative(client, m.url.replace(/^file:/, ''))}:${m.lastLine ?? ''}: ${m.message}`);
  });
  return problems;
}

if (import.meta.main) {
  const dist = resolve(process.argv[2] ?? 'dist');
  const problems = await checkBuild(dist);
  if (problems.length > 0) {
    console.error(
      `\nThe build has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
    process.exit(1);
  }
  console.log('The build has no problem.');
}
