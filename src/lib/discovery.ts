// The small discovery documents: the RFC 9727 API catalog, robots.txt and llms.txt.
import { CONTENT_SIGNAL, CONTENT_USAGE } from './ai-preferences.ts';
import { t } from './i18n.ts';
import type { PublicConfig } from './site-config.ts';
import { MCP_TOOLS } from './mcp-tools.ts';
import { describeLangNames } from './locales.ts';
import {
  pathOf,
  AGENT_REFUSED_SEGMENTS,
  BLOG_SIZES,
  DEFAULT_LANG,
  SERVER_CARD_TYPE,
  LANGS,
  type Lang,
} from './surface.ts';
import { absoluteUrl, twinPath } from './urls.ts';

/** The languages, the default first. */
const byDefaultFirst = LANGS.toSorted((a, b) => (a === DEFAULT_LANG ? -1 : b === DEFAULT_LANG ? 1 : 0));

/** One RFC 8288 link. */
const linkTo = (config: Pick<PublicConfig, 'baseUrl'>, path: string, rel: string, type: string) =>
  `<${absoluteUrl(config.baseUrl, path)}>; rel="${rel}"; type="${type}"`;

/**
 * The links every HTML and Markdown answer carries (RFC 8288), so that an agent finds the machine-readable documents
 * from whichever page it lands on: llms.txt (`describedby`), the API catalog, OpenAPI and the AI catalog. A page adds
 * its other representation (`pageLinks`); the homepages the rest of rule L (`homepageLinks`).
 */
export function siteLinks(config: Pick<PublicConfig, 'baseUrl'>, { describedBy = true } = {}): string {
  return [
    ...(describedBy ? [linkTo(config, pathOf('getLlmsTxt'), 'describedby', 'text/plain')] : []),
    linkTo(config, pathOf('getApiCatalog'), 'api-catalog', 'application/linkset+json'),
    linkTo(config, pathOf('getOpenApi'), 'service-desc', 'application/json'),
    linkTo(config, pathOf('getAiCatalog'), 'ai-catalog', 'application/json'),
  ].join(', ');
}

/** A page's other representation (`type`) at `url`: its Markdown twin from the HTML, the HTML from the Markdown. */
export function alternateLink(url: string, type: 'text/html' | 'text/markdown'): string {
  return `<${url}>; rel="alternate"; type="${type}"`;
}

/** Rule L of the spec, on the homepages: the site's links, and the documentation and auth policy. */
export function homepageLinks(config: Pick<PublicConfig, 'baseUrl'>): string {
  return [
    siteLinks(config),
    linkTo(config, pathOf('getApiDocs'), 'service-doc', 'text/html'),
    linkTo(config, pathOf('getAuthMd'), 'service-meta', 'text/markdown'),
  ].join(', ');
}

/** RFC 9727 catalog: one linkset entry anchored at the API's base URL (RFC 9264 JSON). */
export function apiCatalog(config: PublicConfig) {
  const url = (path: string) => absoluteUrl(config.baseUrl, path);
  return {
    linkset: [
      {
        anchor: url('/'),
        'service-desc': [{ href: url(pathOf('getOpenApi')), type: 'application/json' }],
        'service-doc': [
          { href: url(pathOf('getApiDocs')), type: 'text/html' },
          { href: url(pathOf('getApiDocsMarkdown')), type: 'text/markdown' },
        ],
        'service-meta': [{ href: url(pathOf('getAuthMd')), type: 'text/markdown' }],
        status: [{ href: url(pathOf('getHealth')), type: 'application/json' }],
      },
      {
        // The MCP endpoint, described by its server card.
        anchor: url(pathOf('mcp')),
        'service-desc': [{ href: url(pathOf('getMcpServerCardAtEndpoint')), type: SERVER_CARD_TYPE }],
        'service-meta': [{ href: url(pathOf('getMcpCatalog')), type: 'application/json' }],
      },
    ],
  };
}

/** AI crawlers and assistants that scanners and operators look for by name (their own user-agent tokens). */
export const AI_CRAWLERS = [
  'GPTBot',
  'OAI-SearchBot',
  'ChatGPT-User',
  'ClaudeBot',
  'Claude-User',
  'Claude-SearchBot',
  'anthropic-ai',
  'PerplexityBot',
  'Perplexity-User',
  'Google-Extended',
  'Applebot-Extended',
  'CCBot',
  'Meta-ExternalAgent',
  'Meta-ExternalFetcher',
  'Amazonbot',
  'Bytespider',
  'DuckAssistBot',
  'MistralAI-User',
  'cohere-ai',
] as const;

export function robotsTxt(config: PublicConfig): string {
  const rules = [
    'Allow: /',
    // The server card lives below /mcp, which is not a page.
    `Allow: ${pathOf('getMcpServerCardAtEndpoint')}`,
    // Each path exactly, with a query, and everything below it (RFC 9309 `$`), so `/auth` never hides `/auth.md`.
    ...[...AGENT_REFUSED_SEGMENTS]
      .map((segment) => `/${segment}`)
      .flatMap((p) => [`Disallow: ${p}$`, `Disallow: ${p}?`, `Disallow: ${p}/`]),
    // The one preference (ai-preferences.ts), as https://contentsignals.org writes it.
    `Content-Signal: ${CONTENT_SIGNAL}`,
  ];
  return [
    '# Every public page may be crawled and read, by search engines and AI agents alike.',
    '# The owner app below creates accounts, sends e-mail and issues credentials: automated clients must stay out.',
    '# Send a descriptive User-Agent and keep your request rate reasonable.',
    '',
    '# AI crawlers and assistants, by name: the same rules as everyone.',
    ...AI_CRAWLERS.map((agent) => `User-agent: ${agent}`),
    ...rules,
    '',
    'User-agent: *',
    ...rules,
    '',
    `Sitemap: ${absoluteUrl(config.baseUrl, pathOf('getSitemap'))}`,
    '',
    // AIPREF's Content-Usage rule and ARD's Agentmap line would be directives here, but Lighthouse 13.5 marks any
    // directive outside its safelist "robots.txt is not valid" (SEO 92 on every page): each is said where nothing
    // rejects it, and named here for people.
    `# The same preference for AI use in the IETF AIPREF vocabulary is the Content-Usage header of every page: ${CONTENT_USAGE}.`,
    `# AI catalog (Agentic Resource Discovery 1.0), also linked from every page: ${absoluteUrl(config.baseUrl, pathOf('getAiCatalog'))}`,
    '',
  ].join('\n');
}

export interface LlmsArticle {
  title: string;
  path: string;
  description: string;
}

/** llms.txt (llmstxt.org): an H1, a blockquote summary, then H2 sections of links. */
export function llmsTxt(config: PublicConfig, articles: Record<Lang, LlmsArticle[]>): string {
  const url = (path: string) => absoluteUrl(config.baseUrl, path);
  const list = (items: LlmsArticle[]) => items.map((a) => `- [${a.title}](${url(a.path)}): ${a.description}`);
  return [
    `# ${config.serviceName}`,
    '',
    `> Link-in-bio profiles (/p/{page}) and digital business cards (/c/{cardId}) for creators and businesses, and a blog in ${describeLangNames()}. Everything public is read-only and needs no credentials; every HTML page answers \`Accept: text/markdown\` with a Markdown twin.`,
    '',
    'Do not use /login or any sign-in, one-time-code, OAuth or payment flow: they create accounts and send e-mail.',
    '',
    `AI use: the site allows \`${CONTENT_USAGE}\` (IETF AIPREF); each owner may choose otherwise for their own profile or card. Every representation of an owner's page (HTML, Markdown twin, share picture, vCard, QR codes) says the owner's choice in its \`Content-Usage\` header, and MCP results in \`_meta.contentUsage\`: honour what each answer says.`,
    '',
    '## Docs',
    '',
    `- [API documentation](${url(pathOf('getApiDocsMarkdown'))}): every endpoint, header and rule, as Markdown`,
    `- [OpenAPI 3.1](${url(pathOf('getOpenApi'))}): machine-readable description`,
    `- [API catalog](${url(pathOf('getApiCatalog'))}): RFC 9727 linkset`,
    `- [Agent access policy](${url(pathOf('getAuthMd'))}): what needs no credentials and how to ask for more`,
    '',
    '## Agents',
    '',
    `- [MCP endpoint](${url(pathOf('mcp'))}): Streamable HTTP, stateless, read-only; tools ${Object.keys(MCP_TOOLS).join(', ')}`,
    `- [MCP server card](${url(pathOf('getMcpServerCardAtEndpoint'))}): identity, transport and protocol versions, listed by the [MCP catalog](${url(pathOf('getMcpCatalog'))}) and the [AI catalog](${url(pathOf('getAiCatalog'))})`,
    `- [MCP server card with the tools](${url(pathOf('getMcpServerCard'))}): where the specification and scanners look for it`,
    `- [Agent skills](${url(pathOf('getAgentSkillsIndex'))}): how to read profiles and cards, the blog, and use the MCP server`,
    '',
    '## Blog',
    '',
    ...byDefaultFirst.flatMap((lang) => [
      `- [${t(lang).readBlog}](${url(twinPath(pathOf('listBlogArticles', { lang })))}): ${BLOG_SIZES.page} articles a page, newest first, with links to the next pages`,
      `- [${t(lang).topicsTitle} (${lang})](${url(twinPath(pathOf('listBlogTopics', { lang })))}): the blog by topic`,
      `- [${t(lang).rss} (${lang})](${url(pathOf('getBlogFeed', { lang }))}) and [${t(lang).jsonFeed} (${lang})](${url(pathOf('getBlogJsonFeed', { lang }))}): the newest articles`,
    ]),
    '',
    'The newest articles:',
    '',
    ...byDefaultFirst.flatMap((lang) => list(articles[lang])),
    '',
    '## Optional',
    '',
    `- [Sitemap](${url(pathOf('getSitemap'))}): every public page, profiles and cards included`,
    `- [Health](${url(pathOf('getHealth'))}): status of the service`,
    '',
  ].join('\n');
}
