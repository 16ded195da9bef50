// Build step: the blog's search index (Pagefind) in dist/client/pagefind/, one index per language (Pagefind reads
// <html lang>; its Snowball stemmers include Arabic), over the articles only (the part of each page marked
// data-pagefind-body). Searched in the browser by src/scripts/blog-search.ts. Pagefind's bundled interfaces are
// removed: they need inline styles the Content-Security-Policy forbids, and the search page draws its own results.
import type { AstroIntegration } from 'astro';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as pagefind from 'pagefind';
import { filesUnder } from '../lib/files.ts';
import { isLang, RESERVED_ARTICLE_SLUGS } from '../lib/surface.ts';
import { paths } from '../lib/urls.ts';

/** The built articles: /{lang}/blog/{slug}.html, not the blog's own pages. */
function articleFiles(root: string): { file: string; url: string }[] {
  return filesUnder(root).flatMap((file) => {
    const match = /^([^/]+)\/blog\/([^/]+)\.html$/.exec(file);
    if (!match || !isLang(match[1]) || RESERVED_ARTICLE_SLUGS.has(match[2]!)) return [];
    return [{ file: join(root, file), url: paths.article(match[1], match[2]!) }];
  });
}

export async function writeSearchIndex(root: string): Promise<{ pages: number; files: number }> {
  const { index, errors } = await pagefind.createIndex({});
  if (!index) throw new Error(`Pagefind: ${errors.join('; ')}`);
  try {
    const articles = articleFiles(root);
    for (const { file, url } of articles) {
      const added = await index.addHTMLFile({ url, content: readFileSync(file, 'utf8') });
      if (added.errors.length > 0) throw new Error(`Pagefind, ${url}: ${added.errors.join('; ')}`);
    }
    const outputPath = join(root, paths.searchIndexDir);
    const written = await index.writeFiles({ outputPath });
    if (written.errors.length > 0) throw new Error(`Pagefind: ${written.errors.join('; ')}`);
    let files = 0;
    for (const file of filesUnder(outputPath)) {
      if (/^pagefind-(?:ui|component-ui|modular-ui|highlight)\b|\.css$/.test(file)) rmSync(join(outputPath, file));
      else files++;
    }
    return { pages: articles.length, files };
  } finally {
    await pagefind.close();
  }
}

export default function searchIndex(): AstroIntegration {
  return {
    name: 'search-index',
    hooks: {
      'astro:build:done': async ({ dir, logger }) => {
        const started = performance.now();
        const { pages, files } = await writeSearchIndex(fileURLToPath(dir));
        logger.info(`search index of ${pages} articles (${files} files) in ${Math.round(performance.now() - started)} ms`);
      },
    },
  };
}
