// The OpenAPI 3.1 description of every public operation in SPEC.md, built for one BASE_URL.
import type { PublicConfig } from './site-config.ts';
import { absoluteUrl, paths } from './urls.ts';

type Json = Record<string, unknown>;

const markdown = { 'text/markdown': { schema: { type: 'string' } } };
const negotiated = (description: string): Json => ({
  description: `${description} HTML by default; Markdown with \`Accept: text/markdown\`.`,
  headers: { Vary: { $ref: '#/components/headers/VaryAccept' } },
  content: { 'text/html': { schema: { type: 'string' } }, ...markdown },
});
const notFoundPage: Json = { $ref: '#/components/responses/NotFoundPage' };
const unavailable: Json = { $ref: '#/components/responses/Unavailable' };

function getOperation(operationId: string, summary: string, description: string, tags: string[], responses: Json, parameters?: Json[]): Json {
  return { get: { operationId, summary, description, tags, ...(parameters ? { parameters } : {}), security: [], responses } };
}

export function openApiDocument(config: PublicConfig): Json {
  const doc = (path: string) => absoluteUrl(config.baseUrl, path);
  const langParam = { $ref: '#/components/parameters/Lang' };
  return {
    openapi: '3.1.0',
    info: {
      title: `${config.serviceName} public API`,
      version: '1.0.0',
      summary: 'Read-only public pages, discovery documents, health and an MCP endpoint.',
      description:
        'Public, read-only surface for link-in-bio profiles, digital business cards and a bilingual blog (Arabic and English). ' +
        'Every HTML page can also be read as Markdown by sending `Accept: text/markdown`. There is no public write API; ' +
        `owners edit their content after signing in at /login, which automated clients must not use. See ${doc(paths.authMd)}.`,
      contact: { name: `${config.serviceName} operators`, email: config.contactEmail, url: doc(paths.authMd) },
      license: { name: 'Proprietary; content belongs to its owners', url: doc(paths.authMd) },
    },
    externalDocs: { description: 'Human documentation', url: doc(paths.apiDocs) },
    servers: [{ url: config.baseUrl, description: 'Production' }],
    // No operation needs credentials; the owner app's cookie is declared only to say so.
    security: [],
    tags: [
      { name: 'pages', description: 'Profiles, cards and blog pages (HTML or Markdown).' },
      { name: 'discovery', description: 'Machine-readable documents that describe the service.' },
      { name: 'agents', description: 'The Model Context Protocol endpoint.' },
      { name: 'operations', description: 'Health of the service.' },
    ],
    paths: {
      '/': {
        get: {
          operationId: 'homepage',
          summary: 'Homepage',
          description: 'The English homepage (the Arabic one is /ar). Carries RFC 8288 `Link` headers to the discovery documents.',
          tags: ['pages'],
          security: [],
          responses: {
            '200': {
              ...negotiated('The homepage.'),
              headers: {
                Vary: { $ref: '#/components/headers/VaryAccept' },
                Link: {
                  description: 'Links with relations api-catalog, service-desc, service-doc and service-meta.',
                  schema: { type: 'string' },
                },
              },
            },
            '404': notFoundPage,
          },
        },
      },
      '/p/{page}': getOperation(
        'getProfilePage',
        'Profile page',
        'A public link-in-bio profile.',
        ['pages'],
        { '200': negotiated('The profile.'), '404': notFoundPage, '503': unavailable },
        [{ name: 'page', in: 'path', required: true, description: 'Profile slug.', schema: { $ref: '#/components/schemas/Slug' } }],
      ),
      '/c/{cardId}': getOperation(
        'getDigitalCard',
        'Digital business card',
        'The page of a digital business card, printed on or encoded in the physical card, or a redirect to the owner\'s website when the card is a plain redirect.',
        ['pages'],
        {
          '200': negotiated('The card page.'),
          '302': {
            description: 'The card is a plain redirect to the owner\'s website.',
            headers: { Location: { description: 'The owner\'s website (absolute URI).', schema: { type: 'string', format: 'uri' } } },
          },
          '404': notFoundPage,
          '503': unavailable,
        },
        [{ name: 'cardId', in: 'path', required: true, description: 'Card identifier.', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{3,64}$' } }],
      ),
      '/c/{cardId}.vcf': getOperation(
        'getDigitalCardVcard',
        'Digital business card as a vCard',
        'The contact of a page-mode card as vCard 3.0 (UTF-8, CRLF, folded at 75 octets), for "Save contact".',
        ['pages'],
        {
          '200': {
            description: 'The vCard, as an attachment whose file name is ASCII with an RFC 5987 `filename*` for non-Latin names.',
            headers: { 'Content-Disposition': { description: 'attachment; filename=…; filename*=UTF-8\'\'…', schema: { type: 'string' } } },
            content: { 'text/vcard': { schema: { type: 'string' } } },
          },
          '404': notFoundPage,
          '503': unavailable,
        },
        [{ name: 'cardId', in: 'path', required: true, description: 'Card identifier.', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{3,64}$' } }],
      ),
      '/blog': getOperation(
        'getBlogForPreferredLanguage',
        'Blog in the visitor\'s language',
        'Redirects to /ar/blog or /en/blog from `Accept-Language` (English when neither matches).',
        ['pages'],
        {
          '302': {
            description: 'Redirect to the blog index in the preferred language.',
            headers: {
              Location: { description: 'Absolute URL of /ar/blog or /en/blog.', schema: { type: 'string', format: 'uri' } },
              Vary: { description: 'Always `Accept-Language`.', schema: { type: 'string' } },
            },
          },
          '404': notFoundPage,
        },
      ),
      '/blog/articles.json': getOperation(
        'getBlogArticleList',
        'Blog articles as JSON',
        'Every published article in both languages, newest first: slug, title, date (ISO 8601), absolute URL and language. The WebMCP and MCP tools list_blog_articles read it.',
        ['pages'],
        {
          '200': {
            description: 'The list.',
            content: {
              'application/json': {
                schema: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['slug', 'title', 'date', 'url', 'lang'],
                    properties: {
                      slug: { type: 'string' },
                      title: { type: 'string' },
                      date: { type: 'string', format: 'date-time' },
                      url: { type: 'string', format: 'uri' },
                      lang: { type: 'string', enum: ['ar', 'en'] },
                    },
                  },
                },
              },
            },
          },
          '404': notFoundPage,
        },
      ),
      '/{lang}/blog': getOperation('listBlogArticles', 'Blog index', 'Articles in one language, newest first. An RSS feed is at /{lang}/blog/rss.xml.', ['pages'], { '200': negotiated('The blog index.'), '404': notFoundPage }, [langParam]),
      '/{lang}/blog/{slug}': getOperation(
        'getBlogArticle',
        'Blog article',
        'One article. Its translation, if any, is linked with `hreflang`.',
        ['pages'],
        { '200': negotiated('The article.'), '404': notFoundPage },
        [langParam, { name: 'slug', in: 'path', required: true, description: 'Article slug.', schema: { $ref: '#/components/schemas/Slug' } }],
      ),
      '/sitemap.xml': getOperation('getSitemap', 'Sitemap', 'Every public page and article, with hreflang alternates.', ['discovery'], {
        '200': { description: 'A sitemaps.org urlset, or a sitemap index past 50,000 URLs.', content: { 'application/xml': { schema: { type: 'string' } } } },
        '404': notFoundPage,
      }),
      '/sitemaps/{n}.xml': getOperation(
        'getSitemapPart',
        'Sitemap part',
        'One part of the sitemap once /sitemap.xml has become a sitemap index (past 50,000 URLs).',
        ['discovery'],
        {
          '200': { description: 'A sitemaps.org urlset.', content: { 'application/xml': { schema: { type: 'string' } } } },
          '404': notFoundPage,
          '503': unavailable,
        },
        [{ name: 'n', in: 'path', required: true, description: 'Part number, from 1.', schema: { type: 'integer', minimum: 1 } }],
      ),
      '/robots.txt': getOperation('getRobots', 'Robots policy', 'Allows crawling of all public pages; disallows the owner app.', ['discovery'], {
        '200': { description: 'The robots.txt policy (RFC 9309).', content: { 'text/plain': { schema: { type: 'string' } } } },
        '404': notFoundPage,
      }),
      '/.well-known/api-catalog': getOperation('getApiCatalog', 'API catalog', 'RFC 9727 API catalog as an RFC 9264 linkset.', ['discovery'], {
        '200': {
          description: 'The linkset.',
          headers: { 'Cache-Control': { $ref: '#/components/headers/DiscoveryCache' } },
          content: { 'application/linkset+json': { schema: { $ref: '#/components/schemas/Linkset' } } },
        },
        '404': notFoundPage,
      }),
      '/openapi.json': getOperation('getOpenApi', 'OpenAPI document', 'This document.', ['discovery'], {
        '200': {
          description: 'OpenAPI 3.1 document.',
          headers: { 'Cache-Control': { $ref: '#/components/headers/DiscoveryCache' } },
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        '404': notFoundPage,
      }),
      '/docs/api': getOperation('getApiDocs', 'API documentation', 'Human documentation of every endpoint and rule. The Markdown version is at /docs/api.md.', ['discovery'], {
        '200': {
          description: 'The documentation page (HTML; Markdown with `Accept: text/markdown`).',
          headers: { 'Cache-Control': { $ref: '#/components/headers/DiscoveryCache' }, Vary: { $ref: '#/components/headers/VaryAccept' } },
          content: { 'text/html': { schema: { type: 'string' } }, ...markdown },
        },
        '404': notFoundPage,
      }),
      '/docs/api.md': getOperation('getApiDocsMarkdown', 'API documentation as Markdown', 'The Markdown version of /docs/api.', ['discovery'], {
        '200': { description: 'The documentation as Markdown.', headers: { 'Cache-Control': { $ref: '#/components/headers/DiscoveryCache' } }, content: markdown },
        '404': notFoundPage,
      }),
      '/auth.md': getOperation('getAuthMd', 'Agent access policy', 'Agent registration and credential policy: what needs no credentials, and how to ask for operator-provisioned access.', ['discovery'], {
        '200': { description: 'The policy as Markdown.', headers: { 'Cache-Control': { $ref: '#/components/headers/DiscoveryCache' } }, content: markdown },
        '404': notFoundPage,
      }),
      '/.well-known/mcp/server-card.json': getOperation('getMcpServerCard', 'MCP server card', 'Identity, Streamable HTTP endpoint, protocol versions, capabilities and tools of the MCP server.', ['discovery', 'agents'], {
        '200': {
          description: 'The server card.',
          headers: { 'Cache-Control': { $ref: '#/components/headers/DiscoveryCache' } },
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        '404': notFoundPage,
      }),
      '/mcp': {
        post: {
          operationId: 'mcp',
          summary: 'MCP endpoint (Streamable HTTP, stateless, read-only)',
          description:
            'Model Context Protocol over Streamable HTTP without sessions or authentication. Methods: initialize, ping, tools/list, tools/call, resources/list, resources/read. ' +
            'Tools: get_profile, get_digital_card, list_blog_articles, get_blog_article, read_page.',
          tags: ['agents'],
          security: [],
          parameters: [
            {
              name: 'Accept',
              in: 'header',
              required: true,
              description: 'Must list both `application/json` and `text/event-stream`.',
              schema: { type: 'string', examples: ['application/json, text/event-stream'] },
            },
            {
              name: 'MCP-Protocol-Version',
              in: 'header',
              required: false,
              description: 'Protocol version negotiated at initialize; an unsupported value is refused with 400.',
              schema: { type: 'string', examples: ['2025-11-25'] },
            },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcRequest' } } },
          },
          responses: {
            '200': { description: 'A JSON-RPC 2.0 response.', content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcResponse' } } } },
            '400': { $ref: '#/components/responses/JsonRpcError' },
            '403': { $ref: '#/components/responses/JsonRpcError' },
            '406': { $ref: '#/components/responses/JsonRpcError' },
            '413': { $ref: '#/components/responses/JsonRpcError' },
            '415': { $ref: '#/components/responses/JsonRpcError' },
            '429': { $ref: '#/components/responses/JsonRpcError' },
          },
        },
      },
      '/health': getOperation('getHealth', 'Health', 'Whether the application and its database answer. Never cached.', ['operations'], {
        '200': { $ref: '#/components/responses/Health' },
        '503': { $ref: '#/components/responses/Health' },
      }),
      '/{alias}': getOperation(
        'getProfileAlias',
        'Profile alias',
        'A short alias of a paid-plan owner\'s profile. Reserved paths (every route above, the owner app\'s paths, files at the root) are never aliases.',
        ['pages'],
        {
          '302': {
            description: 'Redirect to the owner\'s /p/{page}.',
            headers: { Location: { description: 'Absolute URL of the profile.', schema: { type: 'string', format: 'uri' } } },
          },
          '404': notFoundPage,
          '503': unavailable,
        },
        [{ name: 'alias', in: 'path', required: true, description: 'The alias.', schema: { $ref: '#/components/schemas/Slug' } }],
      ),
    },
    components: {
      securitySchemes: {
        token: {
          type: 'apiKey',
          in: 'cookie',
          name: 'token',
          description: 'Session cookie of a signed-in account owner in the web app. Not issued to automated clients; no operation here requires it.',
        },
      },
      parameters: {
        Lang: { name: 'lang', in: 'path', required: true, description: 'Language of the blog.', schema: { type: 'string', enum: ['ar', 'en'] } },
      },
      headers: {
        VaryAccept: { description: 'Always includes `Accept`: the same URL answers HTML or Markdown.', schema: { type: 'string' } },
        DiscoveryCache: { description: '`public, max-age=3600`.', schema: { type: 'string' } },
      },
      responses: {
        NotFoundPage: {
          description: 'Not found: an HTML error page in the language of the path, or Markdown with `Accept: text/markdown`.',
          headers: { Vary: { $ref: '#/components/headers/VaryAccept' } },
          content: { 'text/html': { schema: { type: 'string' } }, ...markdown },
        },
        Unavailable: {
          description: 'The database is unavailable; the error page is negotiated like a 404, with `Retry-After`.',
          headers: { 'Retry-After': { description: 'Seconds before trying again.', schema: { type: 'integer' } } },
          content: { 'text/html': { schema: { type: 'string' } }, ...markdown },
        },
        Health: {
          description: 'The health object: 200 when ok, 503 when degraded.',
          headers: { 'Cache-Control': { description: '`no-store`.', schema: { type: 'string' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } },
        },
        JsonRpcError: {
          description: 'A JSON-RPC 2.0 error object.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcErrorResponse' } } },
        },
      },
      schemas: {
        Slug: { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', maxLength: 64 },
        Health: {
          type: 'object',
          required: ['status', 'service', 'time'],
          properties: {
            status: { type: 'string', enum: ['ok', 'degraded'] },
            service: { type: 'string', description: 'Constant name of the service.' },
            time: { type: 'string', format: 'date-time' },
          },
        },
        Linkset: {
          type: 'object',
          required: ['linkset'],
          properties: {
            linkset: {
              type: 'array',
              items: {
                type: 'object',
                required: ['anchor'],
                properties: { anchor: { type: 'string', format: 'uri' } },
                additionalProperties: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['href'],
                    properties: { href: { type: 'string', format: 'uri' }, type: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
        JsonRpcRequest: {
          oneOf: [
            { $ref: '#/components/schemas/JsonRpcMessage' },
            { type: 'array', items: { $ref: '#/components/schemas/JsonRpcMessage' }, minItems: 1 },
          ],
        },
        JsonRpcMessage: {
          type: 'object',
          required: ['jsonrpc', 'method'],
          properties: {
            jsonrpc: { const: '2.0' },
            id: { type: ['string', 'integer', 'null'] },
            method: { type: 'string' },
            params: { type: 'object' },
          },
        },
        JsonRpcResponse: {
          type: 'object',
          required: ['jsonrpc'],
          properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, result: { type: 'object' }, error: { $ref: '#/components/schemas/JsonRpcErrorObject' } },
        },
        JsonRpcErrorResponse: {
          type: 'object',
          required: ['jsonrpc', 'id', 'error'],
          properties: { jsonrpc: { const: '2.0' }, id: { type: ['string', 'integer', 'null'] }, error: { $ref: '#/components/schemas/JsonRpcErrorObject' } },
        },
        JsonRpcErrorObject: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'integer', examples: [-32700, -32600, -32601, -32602, -32000] }, message: { type: 'string' }, data: {} },
        },
      },
    },
  };
}
