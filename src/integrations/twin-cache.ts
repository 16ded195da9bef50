// The Markdown twins' entries in the build cache (build-cache.ts): a page's twin (a file, hard-linked into the build),
// its sitemap entry and inline-style hashes (JSON), under a hash of the page's HTML (its SHA-256, file-digests.ts) and
// of the code that converts it.
// Read by the build step itself, so that a rebuild whose pages are all known starts no worker and writes no twin;
// written by the workers for the pages they convert.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SitemapEntry } from '../lib/sitemap.ts';
import { keyOf, linkOrCopy, writeEntry } from './build-cache.ts';

export interface TwinFacts {
  entry?: SitemapEntry;
  styles: string[];
  /** The Open Graph image the page names, what it says it shows and the page's language (og-images.ts checks them). */
  og?: OgMention;
}

export interface OgMention {
  /** og:image's URL. */
  image: string;
  /** og:image:alt, decoded. */
  alt?: string;
  /** <html lang>. */
  lang?: string;
}

/** Where a page's entry lives: `{base}.md` (the twin) and `{base}.json` (its facts, written last). */
export function twinCacheBase(cacheDir: string, code: string, htmlSha256: string): string {
  return join(cacheDir, keyOf(code, htmlSha256));
}

/** The cached facts of a page, with its twin put at `twinFile`; undefined when the cache does not know the page. */
export function useCachedTwin(base: string, twinFile: string): TwinFacts | undefined {
  if (!existsSync(`${base}.json`)) return undefined;
  linkOrCopy(`${base}.md`, twinFile);
  return JSON.parse(readFileSync(`${base}.json`, 'utf8')) as TwinFacts;
}

/** The twin, then its facts: they are what is looked for. */
export function writeCachedTwin(base: string, markdown: string, facts: TwinFacts): void {
  writeEntry(`${base}.md`, markdown);
  writeEntry(`${base}.json`, JSON.stringify(facts));
}
