// A worker thread of the markdown-twins build step: for each HTML file it is given (the pages the build cache does
// not know), writes the Markdown twin beside it, keeps it in the cache, and returns the page's sitemap entry and the
// hashes of its inline styles. Files are split across workers, one per core.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { headOf, pageToMarkdown, parsePage } from '../lib/markdown.ts';
import { sitemapEntryOf, type SitemapEntry } from '../lib/sitemap.ts';
import { styleHash } from '../lib/build-manifest.ts';
import { linkOrCopy } from './build-cache.ts';
import { sha256Of } from './file-digests.ts';
import { twinCacheBase, writeCachedTwin, type OgMention } from './twin-cache.ts';
import type { Result } from '../lib/result.ts';

export interface TwinJob {
  root: string;
  files: string[];
  /** The build cache's folder for twins, and the hash of the code that makes them (build-cache.ts). */
  cacheDir: string;
  code: string;
}

export type TwinResult = Result<
  { entries: SitemapEntry[]; styleHashes: string[]; og: [file: string, og: OgMention][] },
  { file: string; problem: string }
>;

/** The Open Graph image a page names, if it names one. */
function ogMentionOf(doc: Document): OgMention | undefined {
  const head = headOf(doc);
  const image = head.find('META', 'property', 'og:image')?.getAttribute('content');
  if (!image) return undefined;
  const alt = head.find('META', 'property', 'og:image:alt')?.getAttribute('content') ?? undefined;
  const lang = doc.documentElement.getAttribute('lang') ?? undefined;
  return { image, ...(alt !== undefined ? { alt } : {}), ...(lang !== undefined ? { lang } : {}) };
}

// Synchronous file calls: this thread has nothing else to do, and fs/promises' writeFile was 14 times slower here.
function run({ files, cacheDir, code }: TwinJob): TwinResult {
  const entries: SitemapEntry[] = [];
  const styleHashes = new Set<string>();
  const og: [string, OgMention][] = [];
  for (const file of files) {
    try {
      const bytes = readFileSync(file);
      const html = bytes.toString('utf8');
      // Parsed once: the sitemap entry reads the head, then the conversion changes the document.
      const doc = parsePage(html);
      const entry = sitemapEntryOf(doc);
      const styles = Array.from(doc.getElementsByTagName('style'), (style) => styleHash(style.textContent ?? ''));
      const mention = ogMentionOf(doc);
      const markdown = pageToMarkdown(doc);
      // Written once, to the cache, and linked into the build as a rebuild links it.
      const base = twinCacheBase(cacheDir, code, sha256Of(bytes));
      writeCachedTwin(base, markdown, { ...(entry ? { entry } : {}), styles, ...(mention ? { og: mention } : {}) });
      linkOrCopy(`${base}.md`, file.replace(/\.html$/, '.md'));
      if (entry) entries.push(entry);
      if (mention) og.push([file, mention]);
      for (const style of styles) styleHashes.add(style);
    } catch (err) {
      return { ok: false, file, problem: (err as Error).message };
    }
  }
  return { ok: true, entries, styleHashes: [...styleHashes], og };
}

parentPort?.postMessage(run(workerData as TwinJob));
