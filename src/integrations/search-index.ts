// Build step: the blog's search index (Pagefind), a bundle per language in dist/client/pagefind/{lang}/ (the search
// page of a language loads its own; Pagefind's Snowball stemmers include Arabic), over the articles only (the part of each page marked
// data-pagefind-body). Searched in the browser by src/scripts/blog-search.ts. Pagefind's bundled interfaces are
// left out: they need inline styles the Content-Security-Policy forbids, and the search page draws its own results.
import type { AstroIntegration } from 'astro';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as pagefind from 'pagefind';
import { buildCacheDir, codeHash, linkOrCopy, writeEntry } from './build-cache.ts';
import { buildStep } from './build-step.ts';
import type { FileDigests } from './file-digests.ts';
import { LANGS, type Lang } from '../lib/locales.ts';
import { paths } from '../lib/urls.ts';

/** Pagefind's bundled interfaces (they need inline styles the CSP forbids; the search page draws its own). */
const INTERFACE = /^pagefind-(?:ui|component-ui|modular-ui|highlight)\b|\.css$/;
/** What makes the index besides the pages: this step and the installed Pagefind (in the package record). */
const CODE = ['src/integrations/search-index.ts'];

interface Cache {
  dir: string;
  code: string;
}
/** A language's index as the cache keeps it: each file's path in the bundle and the name of its bytes in the cache. */
type Listing = [path: string, stored: string][];

/**
 * One language's bundle in `root`/pagefind/{lang}/, from its articles (`root`/{lang}/blog/*.html). The build cache
 * keeps every bundle file under a hash of its bytes and, under a hash of the articles' names and hashes
 * (file-digests.ts), the list of a language's files: a language whose articles did not change is linked from the
 * cache without running Pagefind (an edit to an English article rebuilds the English index only), and a changed
 * article, or changed code, can never be answered from the cache.
 */
async function writeLanguage(
  root: string,
  lang: Lang,
  cache: Cache,
  digests: FileDigests,
): Promise<{ pages: number; files: number; reused: boolean }> {
  const out = join(root, paths.searchIndex(lang));
  const folder = join(root, lang, 'blog');
  const articles = existsSync(folder)
    ? readdirSync(folder)
        .filter((f) => f.endsWith('.html'))
        .sort()
    : [];
  const key = createHash('sha256').update(cache.code);
  for (const file of articles) key.update(`${file}\0${digests.of(join(folder, file)).sha256}\0`);
  const listingFile = join(cache.dir, `${lang}-${key.digest('base64url')}.json`);
  const place = (listing: Listing) => {
    for (const [path, stored] of listing) {
      mkdirSync(dirname(join(out, path)), { recursive: true });
      linkOrCopy(join(cache.dir, stored), join(out, path));
    }
  };
  const count = (listing: Listing) => listing.filter(([path]) => path.startsWith('fragment/')).length;
  if (existsSync(listingFile)) {
    const listing = JSON.parse(readFileSync(listingFile, 'utf8')) as Listing;
    place(listing);
    return { pages: count(listing), files: listing.length, reused: true };
  }

  const { index, errors } = await pagefind.createIndex({ forceLanguage: lang });
  if (!index) throw new Error(`Pagefind: ${errors.join('; ')}`);
  // Pagefind reads the files itself (faster than sending them one by one: 6–7 s against 10 s at 2,000 articles a
  // language); the blog's pages that are not articles carry no data-pagefind-body, so it leaves them out. It names
  // pages by their files (/en/blog/x.html): the search page drops the .html.
  const added = await index.addDirectory({ path: root, glob: `${lang}/blog/*.html` });
  if (added.errors.length > 0) throw new Error(`Pagefind: ${added.errors.join('; ')}`);
  const got = await index.getFiles();
  if (got.errors.length > 0) throw new Error(`Pagefind: ${got.errors.join('; ')}`);
  const listing: Listing = [];
  for (const { path, content } of got.files) {
    if (INTERFACE.test(path)) continue;
    // Named by its bytes (and its extension, which Pagefind's fingerprinted names carry too).
    const stored = createHash('sha256').update(content).digest('base64url') + path.slice(path.lastIndexOf('.'));
    if (!existsSync(join(cache.dir, stored))) writeEntry(join(cache.dir, stored), content);
    listing.push([path, stored]);
  }
  place(listing);
  writeEntry(listingFile, JSON.stringify(listing));
  return { pages: count(listing), files: listing.length, reused: false };
}

/** Writes each language's index into `root`/pagefind/{lang}/, reusing from `cache` what did not change. */
async function writeSearchIndex(
  root: string,
  cache: Cache,
  digests: FileDigests,
): Promise<{ pages: number; files: number; reused: Lang[] }> {
  try {
    const done = await Promise.all(LANGS.map((lang) => writeLanguage(root, lang, cache, digests)));
    return {
      pages: done.reduce((sum, d) => sum + d.pages, 0),
      files: done.reduce((sum, d) => sum + d.files, 0),
      reused: LANGS.filter((_, i) => done[i]!.reused),
    };
  } finally {
    await pagefind.close();
  }
}

export default function searchIndex(digestsOf: (projectRoot: string) => FileDigests): AstroIntegration {
  return buildStep('search-index', async ({ projectRoot, root }) => {
    const cache = { dir: buildCacheDir(projectRoot, 'pagefind'), code: codeHash(projectRoot, CODE) };
    const { pages, files, reused } = await writeSearchIndex(root, cache, digestsOf(projectRoot));
    const from = reused.length > 0 ? `; ${reused.join(', ')} unchanged, from the build cache` : '';
    return `search index of ${pages} articles (${files} files${from})`;
  });
}
