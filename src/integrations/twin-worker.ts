// A worker thread of the markdown-twins build step: for each HTML file it is given (the pages the build cache does
// not know), writes the Markdown twin beside it, keeps it in the cache, and returns the page's sitemap entry and the
// hashes of its inline styles. Files are split across workers, one per core.
import { readFileSync, writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { pageToMarkdown, parsePage } from '../lib/markdown.ts';
import { sitemapEntryOf, type SitemapEntry } from '../lib/sitemap.ts';
import { styleHash } from '../lib/build-manifest.ts';
import { twinCacheBase, writeCachedTwin } from './twin-cache.ts';
import type { Result } from '../lib/result.ts';

export interface TwinJob {
  root: string;
  files: string[];
  /** The build cache's folder for twins, and the hash of the code that makes them (build-cache.ts). */
  cacheDir: string;
  code: string;
}

export type TwinResult = Result<{ entries: SitemapEntry[]; styleHashes: string[] }, { file: string; problem: string }>;

// Synchronous file calls: this thread has nothing else to do, and fs/promises' writeFile was 14 times slower here.
function run({ files, cacheDir, code }: TwinJob): TwinResult {
  const entries: SitemapEntry[] = [];
  const styleHashes = new Set<string>();
  for (const file of files) {
    try {
      const html = readFileSync(file, 'utf8');
      // Parsed once: the sitemap entry reads the head, then the conversion changes the document.
      const doc = parsePage(html);
      const entry = sitemapEntryOf(doc);
      const styles = Array.from(doc.getElementsByTagName('style'), (style) => styleHash(style.textContent ?? ''));
      const markdown = pageToMarkdown(doc);
      writeFileSync(file.replace(/\.html$/, '.md'), markdown);
      writeCachedTwin(twinCacheBase(cacheDir, code, html), markdown, { ...(entry ? { entry } : {}), styles });
      if (entry) entries.push(entry);
      for (const style of styles) styleHashes.add(style);
    } catch (err) {
      return { ok: false, file, problem: (err as Error).message };
    }
  }
  return { ok: true, entries, styleHashes: [...styleHashes] };
}

parentPort?.postMessage(run(workerData as TwinJob));
