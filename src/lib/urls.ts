// URL building shared by pages, twins, discovery documents and the sidecar.
import { DEFAULT_LANG, LANGS, type Lang } from './locales.ts';

export const paths = {
  home: (lang: Lang) => (lang === DEFAULT_LANG ? '/' : `/${lang}`),
  profile: (slug: string) => `/p/${slug}`,
  card: (cardId: string) => `/c/${cardId}`,
  vcard: (cardId: string) => `/c/${cardId}.vcf`,
  cardQr: (cardId: string) => `/c/${cardId}/qr.svg`,
  cardContactQr: (cardId: string) => `/c/${cardId}/contact-qr.svg`,
  profileQr: (slug: string) => `/p/${slug}/qr.svg`,
  shareScript: '/global-scripts/share.js',
  sitemapPart: (n: number) => `/sitemaps/${n}.xml`,
  blogIndex: (lang: Lang) => `/${lang}/blog`,
  /** Page `n` of the blog index; the first page is the index itself. */
  blogPage: (lang: Lang, n: number) => (n <= 1 ? `/${lang}/blog` : `/${lang}/blog/page/${n}`),
  topics: (lang: Lang) => `/${lang}/blog/topics`,
  /** Page `n` of a topic's articles; the first page is the topic's own URL. */
  topic: (lang: Lang, key: string, n = 1) =>
    n <= 1 ? `/${lang}/blog/topics/${key}` : `/${lang}/blog/topics/${key}/page/${n}`,
  search: (lang: Lang) => `/${lang}/blog/search`,
  article: (lang: Lang, slug: string) => `/${lang}/blog/${slug}`,
  rss: (lang: Lang) => `/${lang}/blog/rss.xml`,
  jsonFeed: (lang: Lang) => `/${lang}/blog/feed.json`,
  /** The build's search index (Pagefind): one bundle a language. */
  searchIndex: (lang: Lang) => `/pagefind/${lang}/`,
  errorPage: (lang: Lang, status: ErrorStatus) => `/${lang}/${status}`,
  apiDocs: '/docs/api',
  apiDocsMarkdown: '/docs/api.md',
  openApi: '/openapi.json',
  apiCatalog: '/.well-known/api-catalog',
  authMd: '/auth.md',
  robots: '/robots.txt',
  sitemap: '/sitemap.xml',
  llms: '/llms.txt',
  health: '/health',
  mcp: '/mcp',
  mcpServerCard: '/.well-known/mcp/server-card.json',
  /** The card where the discovery draft puts it: the Streamable HTTP endpoint's /server-card. */
  mcpServerCardDraft: '/mcp/server-card',
  mcpCatalog: '/.well-known/mcp/catalog.json',
  aiCatalog: '/.well-known/ai-catalog.json',
  agentSkillsIndex: '/.well-known/agent-skills/index.json',
  agentSkill: (name: string, file: string) => `/.well-known/agent-skills/${name}/${file}`,
  webmcpScript: '/global-scripts/webmcp.js',
  articles: '/blog/articles.json',
} as const;

/** The statuses answered with a page of their own (built per language; not addressable themselves). */
export const ERROR_STATUSES = [404, 500, 503] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

export function absoluteUrl(baseUrl: string, path: string): string {
  return new URL(path, baseUrl + '/').href;
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
