// Build step: a Markdown twin beside every HTML page. Each page is parsed once, so the step also records what the page
// says for the sitemap and which inline styles it holds (page-facts.ts), for the steps after it.
import type { AstroIntegration } from 'astro';
import { join, relative } from 'node:path';
import type { SitemapEntry } from '../lib/sitemap.ts';
import type { TwinJob, TwinResult } from './twin-worker.ts';
import { buildCacheDir, codeHash } from './build-cache.ts';
import { buildStep, inWorkers } from './build-step.ts';
import type { FileDigests } from './file-digests.ts';
import { twinCacheBase, useCachedTwin, type OgMention } from './twin-cache.ts';
import { filesUnder } from '../lib/files.ts';
import type { PageFactsBoard } from './page-facts.ts';

/** The code a twin and its facts are made by: a change to any of these makes every twin again. */
const TWIN_CODE = [
  'src/lib/markdown.ts',
  'src/lib/sitemap.ts',
  'src/lib/build-manifest.ts',
  'src/integrations/twin-worker.ts',
  'src/integrations/twin-cache.ts',
];

/**
 * Converts every page on all cores: the conversion (domino and turndown) is CPU-bound and was most of the build at
 * 2,000 articles per language (see docs/benchmarks/overview.md). Pages the build cache knows are not converted again. Returns the
 * pages' facts; throws naming the first page that failed.
 */
async function twinsInWorkers(
  workerFile: string,
  root: string,
  all: string[],
  cache: { cacheDir: string; code: string },
  digests: FileDigests,
): Promise<{ sitemap: SitemapEntry[]; styleHashes: string[]; ogImages: [string, OgMention][]; reused: number }> {
  const entries: SitemapEntry[] = [];
  const styleHashes = new Set<string>();
  const ogImages: [string, OgMention][] = [];
  // Pages the cache knows are linked here; only the others go to workers (starting one costs about half a second).
  const files: string[] = [];
  for (const file of all) {
    const facts = useCachedTwin(
      twinCacheBase(cache.cacheDir, cache.code, digests.of(file).sha256),
      file.replace(/\.html$/, '.md'),
    );
    if (!facts) {
      files.push(file);
      continue;
    }
    if (facts.entry) entries.push(facts.entry);
    for (const style of facts.styles) styleHashes.add(style);
    if (facts.og) ogImages.push([relative(root, file), facts.og]);
  }
  const results = await inWorkers<string, TwinResult>(
    workerFile,
    files,
    50,
    (share) => ({ root, files: share, ...cache }) satisfies TwinJob,
    'a Markdown twin worker',
  );
  for (const result of results) {
    if (!result.ok) throw new Error(`Markdown twin of ${relative(root, result.file)} failed: ${result.problem}`);
    entries.push(...result.entries);
    for (const hash of result.styleHashes) styleHashes.add(hash);
    for (const [file, og] of result.og) ogImages.push([relative(root, file), og]);
  }
  return {
    sitemap: entries,
    styleHashes: [...styleHashes].sort(),
    ogImages: ogImages.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    reused: all.length - files.length,
  };
}

export default function markdownTwins(
  pages: PageFactsBoard,
  digestsOf: (projectRoot: string) => FileDigests,
): AstroIntegration {
  return buildStep('markdown-twins', async ({ projectRoot, root }) => {
    const files: string[] = [];
    for (const file of filesUnder(root)) if (file.endsWith('.html')) files.push(join(root, file));
    const cache = { cacheDir: buildCacheDir(projectRoot, 'twins'), code: codeHash(projectRoot, TWIN_CODE) };
    const { sitemap, styleHashes, ogImages, reused } = await twinsInWorkers(
      join(projectRoot, 'src/integrations/twin-worker.ts'),
      root,
      files,
      cache,
      digestsOf(projectRoot),
    );
    digestsOf(projectRoot).save();
    pages.record({ sitemap: sitemap.sort((a, b) => a.url.localeCompare(b.url)), styleHashes, ogImages });
    return `${files.length} Markdown twins (${reused} from the build cache)`;
  });
}
