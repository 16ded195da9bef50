// `npm run check:build [-- DIST]`: what readers and agents would meet in a finished build, checked before it is
// published (the publish workflow runs it on the production build, content-only changes included): every internal
// link, image and #fragment lands (src/lib/link-check.ts), every page has its Markdown twin, the sitemap and the RSS
// feeds are valid against their schemas, the JSON Feeds are JSON Feed 1.1, and every page passes the Nu HTML
// Checker. Lists every problem, exits 1 if there is one. Needs xmllint and Java (scripts/test-deps.sh --content).
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { filesUnder } from '../src/lib/files.ts';
import { checkLinks, missingTwins } from '../src/lib/link-check.ts';
import { LANGS } from '../src/lib/locales.ts';
import { paths } from '../src/lib/urls.ts';
import { readManifest } from '../src/lib/build-manifest.ts';
import { vnu, xmllintRss, xmllintSitemap } from './validators.ts';

export function checkBuild(distDir: string, log = (line: string) => console.log(line)): string[] {
  const client = join(distDir, 'client');
  const manifest = readManifest(distDir);
  if (!manifest) return [`${distDir}: no build here (run npm run build)`];
  const { baseUrl } = manifest;
  const problems: string[] = [];
  const step = (what: string, run: () => string[]) => {
    const started = performance.now();
    const found = run();
    problems.push(...found);
    log(`${what}: ${found.length === 0 ? 'ok' : `${found.length} problem${found.length === 1 ? '' : 's'}`} (${Math.round(performance.now() - started)} ms)`);
  };
  step('links, images and fragments', () => checkLinks(client, baseUrl));
  step('Markdown twins', () => missingTwins(client));
  step('sitemap against the sitemaps.org schema', () => {
    const result = xmllintSitemap(readFileSync(join(client, paths.sitemap), 'utf8'));
    return result.ok ? [] : [`sitemap.xml: ${result.output.trim()}`];
  });
  step('feeds', () =>
    LANGS.flatMap((lang) => {
      const found: string[] = [];
      const rss = xmllintRss(readFileSync(join(client, paths.rss(lang)), 'utf8'));
      if (!rss.ok) found.push(`${paths.rss(lang)}: ${rss.output.trim()}`);
      try {
        const feed = JSON.parse(readFileSync(join(client, paths.jsonFeed(lang)), 'utf8')) as { version?: unknown; title?: unknown; items?: { id?: unknown; content_text?: unknown; content_html?: unknown }[] };
        if (feed.version !== 'https://jsonfeed.org/version/1.1' || typeof feed.title !== 'string' || !Array.isArray(feed.items)) found.push(`${paths.jsonFeed(lang)}: not a JSON Feed 1.1 (version, title and items are required)`);
        for (const item of feed.items ?? []) if (typeof item.id !== 'string' || (item.content_text === undefined && item.content_html === undefined)) found.push(`${paths.jsonFeed(lang)}: an item without id or content`);
      } catch (err) {
        found.push(`${paths.jsonFeed(lang)}: ${(err as Error).message}`);
      }
      return found;
    }),
  );
  step('HTML (Nu HTML Checker)', () =>
    vnu(filesUnder(client).filter((f) => f.endsWith('.html')).map((f) => join(client, f)))
      .filter((m) => m.type === 'error' || m.subType === 'fatal')
      .map((m) => `${relative(client, m.url.replace(/^file:/, ''))}:${m.lastLine ?? ''}: ${m.message}`),
  );
  return problems;
}

if (import.meta.main) {
  const dist = resolve(process.argv[2] ?? 'dist');
  const problems = checkBuild(dist);
  if (problems.length > 0) {
    console.error(`\nThe build has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    process.exit(1);
  }
  console.log('The build has no problem.');
}
