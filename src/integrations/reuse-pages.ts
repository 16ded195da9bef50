// Build step, first: pages Astro's incremental build may reuse are linked into dist/ instead of copied. Astro empties
// dist/ and then, for each page whose cacheKey and code did not change, copies its stored output back from
// .cache/astro/dist/ unless the page is already in dist/ ("the previous output is preserved"). Copying 4,600 pages
// cost 2–3.5 s of a 14 s rebuild at 2,000 articles a language; linking them all before the pages are made costs 0.1 s,
// and Astro then finds them in place.
//
// Two things the copy gave for free are kept here:
// - A page the build no longer makes (an article removed or made a draft) is not left behind: once the pages are
//   made, every linked page the build did not make or reuse is removed from dist/.
// - Astro's stored copy is never wrong: a page Astro makes again is written through the link, so its stored copy
//   changes before Astro records the page's new key. A build stopped in between would leave a stored copy newer than
//   its record, which a later build with the old inputs would reuse. So a mark is left while linked pages may be
//   written and removed when the build finishes; a build that finds the mark forgets the record, and makes every page.
import type { AstroIntegration } from 'astro';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Astro's record of the last build's pages (astro/dist/core/build/incremental.js) and where it keeps their copies. */
const RECORD = 'incremental-build.json';
const STORED = 'dist';
/** Left in Astro's cache folder while pages linked from it may be written. */
const MARK = 'pages-linked';

interface IncrementalRecord {
  routes: { [component: string]: { paths: { [pathname: string]: { outputFile: string } } } };
}

/** The output files (relative to outDir, e.g. client/en/blog.html) Astro's record of a build names; none without one. */
function recordedPages(cacheDir: string): Set<string> {
  try {
    const record = JSON.parse(readFileSync(join(cacheDir, RECORD), 'utf8')) as IncrementalRecord;
    return new Set(
      Object.values(record.routes).flatMap((route) => Object.values(route.paths).map((p) => p.outputFile)),
    );
  } catch {
    return new Set();
  }
}

export default function reusePages(): AstroIntegration {
  let cacheDir = '';
  let outDir = '';
  let linked = new Set<string>();
  return {
    name: 'reuse-pages',
    hooks: {
      'astro:config:done': ({ config }) => {
        cacheDir = fileURLToPath(config.cacheDir);
        outDir = fileURLToPath(config.outDir);
      },
      'astro:build:start': ({ logger }) => {
        if (!existsSync(join(cacheDir, MARK))) return;
        logger.warn('the last build stopped while it was making pages: every page is made again');
        rmSync(join(cacheDir, RECORD), { force: true });
        rmSync(join(cacheDir, MARK), { force: true });
      },
      // After Astro has emptied dist/ and listed what dist/client holds for the server's manifest (its `assets`: a
      // page linked before then was listed as a static file there, and the server's bundle differed from a full
      // build's), and before it makes the pages.
      'astro:build:ssr': ({ logger, manifest }) => {
        // Astro lists the folder's files (the manifest's assets) in the order its walk met them, which varies from one
        // build to the next (one build from nothing in sixteen differed from the rest by it alone): in order, the
        // server's bundle is the same whenever its inputs are.
        manifest.assets.sort();
        const started = performance.now();
        linked = new Set();
        const made = new Set<string>();
        const pages = recordedPages(cacheDir);
        if (pages.size === 0) return;
        writeFileSync(join(cacheDir, MARK), '');
        for (const page of pages) {
          const out = join(outDir, page);
          if (!made.has(dirname(out))) mkdirSync(dirname(out), { recursive: true });
          made.add(dirname(out));
          try {
            linkSync(join(cacheDir, STORED, page), out);
            linked.add(page);
          } catch {
            // No stored copy (Astro makes the page), or another file system (Astro copies it).
          }
        }
        logger.info(
          `${linked.size} pages of the last build linked in ${Math.round(performance.now() - started)} ms (Astro makes again those whose inputs changed: its "(cached)" lines are the ones reused)`,
        );
      },
      // Before the steps that read the pages (integrations run in order: this one is first).
      'astro:build:done': ({ assets, logger }) => {
        const made = new Set([...assets.values()].flat().map((url) => fileURLToPath(url)));
        const gone = [...linked].map((page) => join(outDir, page)).filter((file) => !made.has(file));
        for (const file of gone) rmSync(file, { force: true });
        if (gone.length > 0)
          logger.info(`${gone.length} page${gone.length === 1 ? '' : 's'} the build no longer makes removed`);
        rmSync(join(cacheDir, MARK), { force: true });
      },
    },
  };
}
