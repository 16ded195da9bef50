// The languages of the site, declared once: each with its direction, its Open Graph locale, how dates are written
// in it, and its name (in itself, and in English for machine-readable descriptions). Everything per language is
// derived from this table: the routes and their parameters, the content folders, the pages' lang and dir, hreflang
// alternates, the language switcher, feeds, OpenAPI enums and MCP tool schemas, the import's validation and the
// database's checks. Adding a language: a row here, its dictionary (src/lib/i18n.ts), the topics' names in it
// (content/blog/topics.json) and content/blog/{code}/.
export interface Locale {
  dir: 'ltr' | 'rtl';
  /** Open Graph locale (og:locale). */
  ogLocale: string;
  /** How dates are written (an Intl locale). */
  dateLocale: string;
  /** The language's name in itself: the language switcher's label. */
  name: string;
  /** Its name in English, for descriptions agents read (tool schemas, OpenAPI). */
  englishName: string;
  /**
   * Silent reading speed of adults, words a minute, for an article's reading time: the IReST study's means
   * (Trauzettel-Klosinski & Dietz, "Standardized Assessment of Reading Performance: The New International Reading
   * Speed Texts IReST", IOVS 53(9), 2012): Arabic 138, English 228.
   */
  wordsPerMinute: number;
}

export const LOCALES = {
  ar: {
    dir: 'rtl',
    ogLocale: 'ar_AR',
    dateLocale: 'ar-u-ca-gregory-nu-latn',
    name: 'العربية',
    englishName: 'Arabic',
    wordsPerMinute: 138,
  },
  en: {
    dir: 'ltr',
    ogLocale: 'en_US',
    dateLocale: 'en-GB',
    name: 'English',
    englishName: 'English',
    wordsPerMinute: 228,
  },
} as const satisfies Record<string, Locale>;

export type Lang = keyof typeof LOCALES;
export const LANGS = Object.keys(LOCALES) as [Lang, ...Lang[]];
/** The language of `/` and of a client that states no preference we have. */
export const DEFAULT_LANG: Lang = 'en';

export function isLang(value: string | undefined): value is Lang {
  return value !== undefined && Object.hasOwn(LOCALES, value);
}

export function dirOf(lang: Lang): 'rtl' | 'ltr' {
  return LOCALES[lang].dir;
}

/** "ar" (Arabic) or "en" (English): the languages as a tool or API description names them. */
export function describeLangs(joiner = 'or'): string {
  const named = LANGS.map((lang) => `"${lang}" (${LOCALES[lang].englishName})`);
  return named.length > 1 ? `${named.slice(0, -1).join(', ')} ${joiner} ${named.at(-1)}` : (named[0] ?? '');
}

/** "Arabic and English": the languages by their English names, for prose agents and documents read. */
export function describeLangNames(joiner = 'and'): string {
  const named = LANGS.map((lang) => LOCALES[lang].englishName);
  return named.length > 1 ? `${named.slice(0, -1).join(', ')} ${joiner} ${named.at(-1)}` : (named[0] ?? '');
}
