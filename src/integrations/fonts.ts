// The shipped typefaces' files (src/lib/fonts.ts): which they are and their fingerprinted names, known when the
// config loads (astro.config.mjs defines them for the pages), and the build step that writes them. The Arabic subset
// of each family is cut by subset-font (HarfBuzz's subsetter: it keeps every glyph the shaping rules reach from the
// kept code points, so joined forms and ligatures survive) to the ranges the pages write; the Latin is @fontsource's
// own file. A file's name is a hash of its source, its range and the subsetter's version, and the cut files are kept
// in the build's cache (.cache/bio-build/fonts/) between builds.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import subsetFont from 'subset-font';
import { FONT_KEYS, FONT_SUBSETS, FONT_WEIGHTS, FONTS, type FontFile } from '../lib/fonts.ts';
import { buildCacheDir, linkOrCopy, writeEntry } from './build-cache.ts';
import { buildStep } from './build-step.ts';

interface SourcedFile extends FontFile {
  source: string;
}

/** The text of a unicode-range: every code point it names, for the subsetter. */
function textOf(range: string): string {
  return range
    .split(',')
    .flatMap((part) => {
      const [from, to = from] = part.trim().slice(2).split('-');
      const [a, b] = [parseInt(from!, 16), parseInt(to!, 16)];
      return Array.from({ length: b - a + 1 }, (_, i) => String.fromCodePoint(a + i));
    })
    .join('');
}

/** Every file the site ships, with where it comes from; `projectRoot` resolves the packages. */
function sourced(projectRoot: string): SourcedFile[] {
  const require = createRequire(join(projectRoot, 'package.json'));
  const subsetter = (require('subset-font/package.json') as { version: string }).version;
  return FONT_KEYS.flatMap((key) =>
    (Object.keys(FONT_SUBSETS) as (keyof typeof FONT_SUBSETS)[]).flatMap((subset) =>
      FONT_WEIGHTS.map((weight) => {
        const pkg = FONTS[key].package;
        const source = require.resolve(`${pkg}/files/${pkg.split('/')[1]}-${subset}-${weight}-normal.woff2`);
        const hash = createHash('sha256')
          .update(readFileSync(source))
          .update(subset === 'arabic' ? `${FONT_SUBSETS.arabic}\0${subsetter}` : 'as published')
          .digest('base64url')
          .slice(0, 12);
        return { key, subset, weight, source, url: `/_astro/font-${key}-${subset}-${weight}-${hash}.woff2` };
      }),
    ),
  );
}

/** The files as pages name them (astro.config.mjs defines `__FONT_FILES__` with this). */
export function fontFiles(projectRoot: string): FontFile[] {
  return sourced(projectRoot).map(({ key, subset, weight, url }) => ({ key, subset, weight, url }));
}

/** The build step: each file into dist/client/_astro/, cut once and then taken from the cache. */
export default function shippedFonts() {
  return buildStep('fonts', async ({ projectRoot, root }) => {
    const cache = buildCacheDir(projectRoot, 'fonts');
    const files = sourced(projectRoot);
    let cut = 0;
    mkdirSync(join(root, '_astro'), { recursive: true });
    for (const file of files) {
      const name = file.url.slice('/_astro/'.length);
      const cached = join(cache, name);
      if (!existsSync(cached)) {
        const bytes = readFileSync(file.source);
        writeEntry(
          cached,
          file.subset === 'arabic'
            ? await subsetFont(bytes, textOf(FONT_SUBSETS.arabic), { targetFormat: 'woff2' })
            : bytes,
        );
        cut++;
      }
      linkOrCopy(cached, join(root, '_astro', name));
    }
    return `${files.length} font files (${cut} cut now)`;
  });
}
