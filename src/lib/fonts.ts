// The typefaces the site ships and serves itself (issue 49): Arabic-and-Latin families from npm (@fontsource), cut by
// the build to the Arabic the pages write (src/integrations/fonts.ts, with subset-font) and served from our origin
// under fingerprinted names (a year, immutable). Nothing is fetched from another host. The site's own default is IBM
// Plex Sans Arabic for Arabic text beside the system's Latin face; an owner's theme may choose any family here for
// both scripts. Each face says `font-display: swap` (text paints at once in the system's face, never blocked), and its
// Arabic is scaled (`size-adjust`) so that it reads as large as the Latin beside it: measured in Chromium, the height
// of the Arabic "ه" against the Latin x-height (docs/serving.md, "Typefaces").

import { dirOf, type Lang } from './locales.ts';

/** The families, by the word a theme names them with. */
export const FONTS = {
  plex: { family: 'IBM Plex Sans Arabic', package: '@fontsource/ibm-plex-sans-arabic', sizeAdjust: 1.15 },
  naskh: { family: 'Noto Naskh Arabic', package: '@fontsource/noto-naskh-arabic', sizeAdjust: 1.07 },
  kufi: { family: 'Noto Kufi Arabic', package: '@fontsource/noto-kufi-arabic', sizeAdjust: 1 },
} as const;
export type FontKey = keyof typeof FONTS;
export const FONT_KEYS = Object.keys(FONTS) as FontKey[];
export const DEFAULT_FONT: FontKey = 'plex';

export const FONT_WEIGHTS = [400, 700] as const;

/**
 * The code points of each subset: Arabic as pages write it (the Arabic block and its supplement for Persian and Urdu
 * letters, the joiners and marks of direction, the ornate parentheses), which the build cuts the font to; Latin as
 * @fontsource cuts it (its own range, kept whole).
 */
export const FONT_SUBSETS = {
  arabic: 'U+0600-06FF, U+0750-077F, U+200C-200F, U+FD3E-FD3F',
  latin:
    'U+0000-00FF, U+0131, U+0152-0153, U+02BB-02BC, U+02C6, U+02DA, U+02DC, U+0304, U+0308, U+0329, U+2000-206F, U+20AC, U+2122, U+2191, U+2193, U+2212, U+2215, U+FEFF, U+FFFD',
} as const;
type FontSubset = keyof typeof FONT_SUBSETS;

/** One file the build writes: a family's subset at a weight, at its fingerprinted URL. */
export interface FontFile {
  key: FontKey;
  subset: FontSubset;
  weight: (typeof FONT_WEIGHTS)[number];
  url: string;
}

/** The build's files (astro.config.mjs defines them from src/integrations/fonts.ts); none outside a build. */
declare const __FONT_FILES__: FontFile[] | undefined;
const FILES: readonly FontFile[] = typeof __FONT_FILES__ === 'undefined' ? [] : __FONT_FILES__;

const SYSTEM_LATIN = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
/** Arabic faces the systems have, after ours: what shows until ours arrives (or where it cannot). */
const SYSTEM_ARABIC = "'Noto Naskh Arabic', 'Geeza Pro', 'Segoe UI', Tahoma";

/** The family name of a face set: `Bio Plex` (Arabic and Latin), `Bio Plex Arabic` (its Arabic alone). */
const familyName = (key: FontKey, arabicOnly: boolean) =>
  `Bio ${key[0]!.toUpperCase()}${key.slice(1)}${arabicOnly ? ' Arabic' : ''}`;

/**
 * The @font-face rules of every shipped family, in one stylesheet for every page (a face costs nothing until text in
 * its range is drawn): each family for both scripts, and the default's Arabic alone (the site's Arabic text, its Latin
 * left to the system).
 */
export function fontFaceCss(files: readonly FontFile[] = FILES): string {
  const face = (family: string, file: FontFile) =>
    `@font-face{font-family:'${family}';font-style:normal;font-weight:${file.weight};font-display:swap;` +
    `src:url(${file.url}) format('woff2');unicode-range:${FONT_SUBSETS[file.subset]}` +
    (file.subset === 'arabic' ? `;size-adjust:${Math.round(FONTS[file.key].sizeAdjust * 100)}%}` : '}');
  return files
    .flatMap((file) => [
      face(familyName(file.key, false), file),
      ...(file.key === DEFAULT_FONT && file.subset === 'arabic' ? [face(familyName(file.key, true), file)] : []),
    ])
    .join('');
}

/**
 * The font stacks of a page drawn in an owner's chosen family (for both scripts). The site's own are global.css's:
 * `'Bio Plex Arabic'` before the systems' Arabic faces, the systems' Latin.
 */
export function fontStacks(key: FontKey): { latin: string; arabic: string } {
  const own = `'${familyName(key, false)}'`;
  return { latin: `${own}, ${SYSTEM_LATIN}`, arabic: `${own}, ${SYSTEM_ARABIC}, ${SYSTEM_LATIN}` };
}

/**
 * The file worth preloading on a page in `lang` drawn in `key`'s family (the site's by default): its regular weight in
 * the page's script. A page's first text then paints in its own face, with no swap to see; bold and the other script
 * come when drawn. None for a Latin page in the site's default (its Latin is the system's).
 */
export function fontPreload(lang: Lang, key?: FontKey, files: readonly FontFile[] = FILES): string | undefined {
  // The site's right-to-left language is Arabic, the only script beside Latin it ships faces for.
  const subset: FontSubset = dirOf(lang) === 'rtl' ? 'arabic' : 'latin';
  if (!key && subset === 'latin') return undefined;
  return files.find((f) => f.key === (key ?? DEFAULT_FONT) && f.subset === subset && f.weight === 400)?.url;
}
