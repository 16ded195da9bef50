// The small discovery documents: the RFC 9727 API catalog, robots.txt and llms.txt.
import type { PublicConfig } from './site-config.ts';
import { absoluteUrl, paths, twinPath } from './urls.ts';

/** Paths of the owner web app: never crawled, never read by agents, never an alias. */
export const OWNER_APP_PATHS = ['/login', '/otp', '/verify', '/auth', '/oauth', '/callback', '/checkout', '/payment', '/billing', '/account', '/dashboard', '/api'] as const;

/** RFC 9727 catalog: one linkset entry anchored at the API's base URL (RFC 9264 JSON). */
export function apiCatalog(config: PublicConfig) {
  const url = (path: string) => absoluteUrl(config.baseUrl, path);
  return {
    linkset: [
      {
        anchor: url('/'),
        'service-desc': [{ href: url(paths.openApi), type: 'application/json' }],
        'service-doc': [
          { href: url(paths.apiDocs), type: 'text/html' },
          { href: url(paths.apiDocsMarkdown), type: 'text/markdown' },
        ],
        'service-meta': [{ href: url(paths.authMd), type: 'text/markdown' }],
        status: [{ href: url(paths.health), type: 'application/json' }],
      },
    ],
  };
}

export function robotsTxt(config: PublicConfig): string {
  return [
    '# Every public page may be crawled and read, by search engines and AI agents alike.',
    '# The owner app below creates accounts, sends e-mail and issues credentials: automated clients must stay out.',
    '# Send a descriptive User-Agent and keep your request rate reasonable.',
    'User-agent: *',
    'Allow: /',
    // Each path exactly, with a query, and everything below it (RFC 9309 `$`), so `/auth` never hides `/auth.md`.
    ...[...OWNER_APP_PATHS, paths.mcp].flatMap((p) => [`Disallow: ${p}$`, `Disallow: ${p}?`, `Disallow: ${p}/`]),
    '',
    // https://contentsignals.org: search and AI input allowed, training left to the owners of the content.
    'Content-Signal: search=yes, ai-input=yes, ai-train=no',
    '',
    `Sitemap: ${absoluteUrl(config.baseUrl, paths.sitemap)}`,
    '',
  ].join('\n');
}

export interface LlmsArticle {
  title: string;
  path: string;
  description: string;
}

/** llms.txt (llmstxt.org): an H1, a blockquote summary, then H2 sections of links. */
export function llmsTxt(config: PublicConfig, articles: Record<'ar' | 'en', LlmsArticle[]>): string {
  const url = (path: string) => absoluteUrl(config.baseUrl, path);
  const list = (items: LlmsArticle[]) => items.map((a) => `- [${a.title}](${url(a.path)}): ${a.description}`);
  return [
    `# ${config.serviceName}`,
    '',
    '> Link-in-bio profiles (/p/{page}) and digital business cards (/c/{cardId}) for Arabic- and English-speaking creators and businesses, and a bilingual blog. Everything public is read-only and needs no credentials; every HTML page answers `Accept: text/markdown` with a Markdown twin.',
    '',
    'Do not use /login or any sign-in, one-time-code, OAuth or payment flow: they create accounts and send e-mail.',
    '',
    '## Docs',
    '',
    `- [API documentation](${url(paths.apiDocsMarkdown)}): every endpoint, header and rule, as Markdown`,
    `- [OpenAPI 3.1](${url(paths.openApi)}): machine-readable description`,
    `- [API catalog](${url(paths.apiCatalog)}): RFC 9727 linkset`,
    `- [Agent access policy](${url(paths.authMd)}): what needs no credentials and how to ask for more`,
    '',
    '## Agents',
    '',
    `- [MCP endpoint](${url(paths.mcp)}): Streamable HTTP, stateless, read-only; tools get_profile, get_digital_card, list_blog_articles, get_blog_article, read_page`,
    `- [MCP server card](${url(paths.mcpServerCard)}): identity, transport, protocol versions and tools`,
    '',
    '## Blog',
    '',
    `- [English blog](${url(twinPath(paths.blogIndex('en')))})`,
    `- [المدونة العربية](${url(twinPath(paths.blogIndex('ar')))})`,
    ...list(articles.en),
    ...list(articles.ar),
    '',
    '## Optional',
    '',
    `- [Sitemap](${url(paths.sitemap)}): every public page, profiles and cards included`,
    `- [Health](${url(paths.health)}): status of the service`,
    '',
  ].join('\n');
}
