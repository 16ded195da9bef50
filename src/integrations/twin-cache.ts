// The Markdown twins' entries in the build cache (build-cache.ts): a page's twin, sitemap entry and inline-style
// hashes, under a hash of the page's HTML and of the code that converts it. Read by the build step itself, so that a
// rebuild whose pages are all known starts no worker; written by the workers for the pages they convert.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SitemapEntry } from '../lib/sitemap.ts';
import { keyOf, tmpName } from './build-cache.ts';

export interface CachedTwin {
  entry?: SitemapEntry;
  styles: string[];
  markdown: string;
}

export function twinCachePath(cacheDir: string, code: string, html: string): string {
  return join(cacheDir, `${keyOf(code, html)}.json`);
}

export function readCachedTwin(path: string): CachedTwin | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as CachedTwin) : undefined;
}

/** Written whole under a name of its own, then renamed: a build stopped half-way leaves no partial entry. */
export function writeCachedTwin(path: string, twin: CachedTwin): void {
  const tmp = tmpName(path);
  writeFileSync(tmp, JSON.stringify(twin));
  renameSync(tmp, path);
}
