// Build step: the blog's search index (Pagefind) in dist/client/pagefind/, one index per language (Pagefind reads
// <html lang>; its Snowball stemmers include Arabic), over the articles only (the part of each page marked
// data-pagefind-body). Searched in the browser by src/scripts/blog-search.ts. Pagefind's bundled interfaces are
// left out: they need inline styles the Content-Security-Policy forbids, and the search page draws its own results.
import type { AstroIntegration } from 'astro';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as pagefind from 'pagefind';
import { isFingerprinted } from '../lib/publish.ts';
import { buildCacheDir, linkOrCopy, writeEntry } from './build-cache.ts';
import { LANGS } from '../lib/surface.ts';
import { paths } from '../lib/urls.ts';

/** Pagefind's bundled interfaces (they need inline styles the CSP forbids; the search page draws its own). */
const INTERFACE = /^pagefind-(?:ui|component-ui|modular-ui|highlight)\b|\.css$/;

/**
 * Writes the index into `root`/pagefind/. Pagefind names its fragments, index chunks and metadata by a hash of their
 * bytes, so those are kept in the build cache (`cacheDir`) and linked into the build when they are already there: a
 * rebuild after one edit writes the few that changed instead of all 4,000.
 */
export async function writeSearchIndex(root: string, cacheDir?: string): Promise<{ pages: number; files: number }> {
  const { index, errors } = await pagefind.createIndex({});
  if (!index) throw new Error(`Pagefind: ${errors.join('; ')}`);
  try {
    // Pagefind reads the files itself (faster than sending them one by one: 6–7 s against 10 s at 2,000 articles a
    // language); the blog's pages that are not articles carry no data-pagefind-body, so it leaves them out. It names
    // pages by their files (/en/blog/x.html): the search page drops the .html.
    const added = await index.addDirectory({ path: root, glob: `{${LANGS.join(',')}}/blog/*.html` });
    if (added.errors.length > 0) throw new Error(`Pagefind: ${added.errors.join('; ')}`);
    const got = await index.getFiles();
    if (got.errors.length > 0) throw new Error(`Pagefind: ${got.errors.join('; ')}`);
    const outputPath = join(root, paths.searchIndexDir);
    let files = 0;
    let pages = 0;
    for (const { path, content } of got.files) {
      if (INTERFACE.test(path)) continue;
      const out = join(outputPath, path);
      mkdirSync(dirname(out), { recursive: true });
      const cached = cacheDir && isFingerprinted(`${paths.searchIndexDir.slice(1)}${path}`) ? join(cacheDir, path.replaceAll('/', '_')) : undefined;
      if (cached && existsSync(cached)) linkOrCopy(cached, out);
      else {
        writeFileSync(out, content);
        if (cached) writeEntry(cached, content);
      }
      files++;
      // One fragment a page indexed (page_count counts every file read, the blog's own pages too).
      if (path.startsWith('fragment/')) pages++;
    }
    return { pages, files };
  } finally {
    await pagefind.close();
  }
}

export default function searchIndex(): AstroIntegration {
  let projectRoot = process.cwd();
  return {
    name: 'search-index',
    hooks: {
      'astro:config:done': ({ config }) => {
        projectRoot = fileURLToPath(config.root);
      },
      'astro:build:done': async ({ dir, logger }) => {
        const started = performance.now();
        const { pages, files } = await writeSearchIndex(fileURLToPath(dir), buildCacheDir(projectRoot, 'pagefind'));
        logger.info(`search index of ${pages} articles (${files} files) in ${Math.round(performance.now() - started)} ms`);
      },
    },
  };
}
