// Build step: the blog's search index (Pagefind) in dist/client/pagefind/, one index per language (Pagefind reads
// <html lang>; its Snowball stemmers include Arabic), over the articles only (the part of each page marked
// data-pagefind-body). Searched in the browser by src/scripts/blog-search.ts. Pagefind's bundled interfaces are
// removed: they need inline styles the Content-Security-Policy forbids, and the search page draws its own results.
import type { AstroIntegration } from 'astro';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as pagefind from 'pagefind';
import { filesUnder } from '../lib/files.ts';
import { LANGS } from '../lib/surface.ts';
import { paths } from '../lib/urls.ts';

export async function writeSearchIndex(root: string): Promise<{ pages: number; files: number }> {
  const { index, errors } = await pagefind.createIndex({});
  if (!index) throw new Error(`Pagefind: ${errors.join('; ')}`);
  try {
    // Pagefind reads the files itself (faster than sending them one by one: 6–7 s against 10 s at 2,000 articles a
    // language); the blog's pages that are not articles carry no data-pagefind-body, so it leaves them out. It names
    // pages by their files (/en/blog/x.html): the search page drops the .html.
    const added = await index.addDirectory({ path: root, glob: `{${LANGS.join(',')}}/blog/*.html` });
    if (added.errors.length > 0) throw new Error(`Pagefind: ${added.errors.join('; ')}`);
    const outputPath = join(root, paths.searchIndexDir);
    const written = await index.writeFiles({ outputPath });
    if (written.errors.length > 0) throw new Error(`Pagefind: ${written.errors.join('; ')}`);
    let files = 0;
    let pages = 0;
    for (const file of filesUnder(outputPath)) {
      if (/^pagefind-(?:ui|component-ui|modular-ui|highlight)\b|\.css$/.test(file)) rmSync(join(outputPath, file));
      else files++;
      // One fragment a page indexed (page_count counts every file read, the blog's own pages too).
      if (file.startsWith('fragment/')) pages++;
    }
    return { pages, files };
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
