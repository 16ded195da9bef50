// URL building shared by pages, twins, discovery documents and the sidecar.
import { DEFAULT_LANG, LANGS, type Lang } from './locales.ts';
import { pathOf } from './surface.ts';

/**
 * Paths that are not routes of their own, and the pages whose first page is another route's URL. Every other path is
 * written by `pathOf` (surface.ts), from its route's declaration.
 */
export const paths = {
  /** A language's homepage: the declared `/` for the default language, `/{lang}` for the others. */
  home: (lang: Lang) => (lang === DEFAULT_LANG ? pathOf('homepage') : `/${lang}`),
  shareScript: '/global-scripts/share.js',
  webmcpScript: '/global-scripts/webmcp.js',
  /** Page `n` of the blog index; the first page is the index itself. */
  blogPage: (lang: Lang, n: number) =>
    n <= 1 ? pathOf('listBlogArticles', { lang }) : pathOf('listBlogArticlesPage', { lang, n: String(n) }),
  /** Page `n` of a topic's articles; the first page is the topic's own URL. */
  topic: (lang: Lang, topic: string, n = 1) =>
    n <= 1
      ? pathOf('listBlogTopicArticles', { lang, topic })
      : pathOf('listBlogTopicArticlesPage', { lang, topic, n: String(n) }),
  /** The build's search index (Pagefind): one bundle a language. */
  searchIndex: (lang: Lang) => `/pagefind/${lang}/`,
  /**
   * The canonical path of a profile's version in `lang`, among the languages it is in (its own first): one language,
   * the profile's printed address /p/{page}; two, each version's own /p/{page}/{lang} (the printed address then
   * answers in the visitor's language: x-default).
   */
  profile: (page: string, lang: Lang, langs: readonly Lang[]) =>
    langs.length > 1 ? pathOf('getProfilePageInLanguage', { page, lang }) : pathOf('getProfilePage', { page }),
  /** The canonical path of a card's version in `lang`, as `profile` says. */
  card: (cardId: string, lang: Lang, langs: readonly Lang[]) =>
    langs.length > 1 ? pathOf('getDigitalCardInLanguage', { cardId, lang }) : pathOf('getDigitalCard', { cardId }),
  /** An error page as built (never addressed: answered with its status at any URL). */
  errorPage: (lang: Lang, status: ErrorStatus) => `/${lang}/${status}`,
} as const;

/** The statuses answered with a page of their own (built per language; not addressable themselves). */
export const ERROR_STATUSES = [404, 500, 503] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

export function absoluteUrl(baseUrl: string, path: string): string {
  return new URL(path, baseUrl + '/').href;
}

/**
 * The URL path a file of the build (relative to dist/client) answers at: `index.html` → `/`, `en/blog/x.html` →
 * `/en/blog/x`, any other file at its own path (`en/blog/x.md` → `/en/blog/x.md`). The sidecar, publishing and the
 * link checker map files to URLs with it.
 */
export function urlOfBuildFile(file: string): string {
  if (file === 'index.html') return pathOf('homepage');
  return file.endsWith('.html') ? `/${file.slice(0, -'.html'.length)}` : `/${file}`;
}

/** The page path a Markdown twin's path is the twin of: `/index.md` → `/`, `/en/blog.md` → `/en/blog`; else undefined. */
export function pageOfTwin(path: string): string | undefined {
  if (!path.endsWith('.md')) return undefined;
  return path === '/index.md' ? '/' : path.slice(0, -'.md'.length);
}

/** The URL path of the Markdown twin of an HTML page path: `/` → `/index.md`, `/en/blog/x` → `/en/blog/x.md`. */
export function twinPath(pagePath: string): string {
  const clean = withoutTrailingSlashes(pagePath);
  return clean === '' ? '/index.md' : `${clean}.md`;
}

/**
 * `path` without the slashes it ends in, in one pass from the end. Not `replace(/\/+$/, '')`: on a run of slashes
 * that does not end the string, that pattern tries every start in the run, and 15,000 slashes before an `a` held the
 * event loop 0.2–0.4 s (issue 36).
 */
export function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end--;
  return path.slice(0, end);
}

/** The error pages' own URLs and their twins' (/en/404, /en/404.md): answered with their status, never addressed. */
const ERROR_PAGE_PATHS: ReadonlySet<string> = new Set(
  LANGS.flatMap((lang) =>
    ERROR_STATUSES.flatMap((status) => [paths.errorPage(lang, status), twinPath(paths.errorPage(lang, status))]),
  ),
);

export function isErrorPagePath(path: string): boolean {
  return ERROR_PAGE_PATHS.has(path);
}
