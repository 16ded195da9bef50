// Build step: a Markdown twin beside every HTML page, the static sitemap, and the build manifest the sidecar checks at
// start (with the hashes of the pages' inline styles, which the Content-Security-Policy allows).
import type { AstroIntegration } from 'astro';
import { writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sitemapXml, type SitemapEntry } from '../lib/sitemap.ts';
import type { TwinJob, TwinResult } from './twin-worker.ts';
import { buildCacheDir, codeHash } from './build-cache.ts';
import { buildStep, inWorkers } from './build-step.ts';
import { twinCacheBase, useCachedTwin } from './twin-cache.ts';
import { filesUnder } from '../lib/files.ts';
import type { PublicConfig } from '../lib/site-config.ts';
import { buildFingerprint, MANIFEST_FILE, STATIC_SITEMAP_FILE, type BuildManifest } from '../lib/build-manifest.ts';

/** The code a twin is made by: a change to any of these makes every twin again. */
const TWIN_CODE = ['src/lib/markdown.ts', 'src/lib/sitemap.ts', 'src/lib/build-manifest.ts', 'src/integrations/twin-worker.ts', 'src/integrations/twin-cache.ts'];

/**
 * Converts every page on all cores: the conversion (domino and turndown) is CPU-bound and was most of the build
 * at 2,000 articles per language (see BENCHMARKS.md). Pages the build cache knows are not converted again. Returns the pages' sitemap entries; throws naming the
 * first page that failed.
 */
async function twinsInWorkers(workerFile: string, root: string, all: string[], cache: { cacheDir: string; code: string }): Promise<{ sitemap: SitemapEntry[]; styleHashes: string[]; reused: number }> {
  const entries: SitemapEntry[] = [];
  const styleHashes = new Set<string>();
  // Pages the cache knows are linked here; only the others go to workers (starting one costs about half a second).
  const files: string[] = [];
  for (const file of all) {
    const facts = useCachedTwin(twinCacheBase(cache.cacheDir, cache.code, readFileSync(file, 'utf8')), file.replace(/\.html$/, '.md'));
    if (!facts) {
      files.push(file);
      continue;
    }
    if (facts.entry) entries.push(facts.entry);
    for (const style of facts.styles) styleHashes.add(style);
  }
  const results = await inWorkers<string, TwinResult>(workerFile, files, 50, (share) => ({ root, files: share, ...cache }) satisfies TwinJob, 'a Markdown twin worker');
  for (const result of results) {
    if (!result.ok) throw new Error(`Markdown twin of ${relative(root, result.file)} failed: ${result.problem}`);
    entries.push(...result.entries);
    for (const hash of result.styleHashes) styleHashes.add(hash);
  }
  return { sitemap: entries, styleHashes: [...styleHashes].sort(), reused: all.length - files.length };
}

export default function markdownTwins(config: PublicConfig): AstroIntegration {
  return buildStep('markdown-twins', async ({ projectRoot, root }) => {
    const files: string[] = [];
    for (const file of filesUnder(root)) if (file.endsWith('.html')) files.push(join(root, file));
    const cache = { cacheDir: buildCacheDir(projectRoot, 'twins'), code: codeHash(projectRoot, TWIN_CODE) };
    const { sitemap, styleHashes, reused } = await twinsInWorkers(join(projectRoot, 'src/integrations/twin-worker.ts'), root, files, cache);

    sitemap.sort((a, b) => a.url.localeCompare(b.url));
    // The static pages' entries: sitemap.xml for a front that serves dist/client alone, and JSON for the sidecar,
    // which adds the live pages to them.
    await writeFile(join(root, 'sitemap.xml'), await sitemapXml(sitemap));
    await writeFile(join(root, '..', STATIC_SITEMAP_FILE), JSON.stringify(sitemap) + '\n');

    const manifest: BuildManifest = {
      baseUrl: config.baseUrl,
      serviceName: config.serviceName,
      contactEmail: config.contactEmail,
      fingerprint: buildFingerprint(projectRoot, config),
      // Live pages use the same layout, so the same styles: test/http/site.test.ts checks every page kind.
      styleHashes,
      builtAt: new Date().toISOString(),
    };
    await writeFile(join(root, '..', MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
    return `${files.length} Markdown twins (${reused} from the build cache) for ${config.baseUrl}`;
  });
}
