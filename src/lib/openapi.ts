// The OpenAPI 3.1 description of the public surface, built for one BASE_URL. Its paths, operation ids, parameters,
// media types and statuses come from the declaration in surface.ts; this module adds only the words (descriptions)
// and the shapes of bodies and headers that a status of one operation has.
import { z } from 'zod';
import { articleListEntry, MCP_TOOLS } from './mcp-tools.ts';
import type { PublicConfig } from './site-config.ts';
import { describeLangNames } from './locales.ts';
import {
  aliasSchema,
  BLOG_SIZES,
  CACHE,
  RESERVED_SEGMENTS,
  ROUTES,
  type RouteDeclaration,
  type RouteId,
} from './surface.ts';
import { absoluteUrl, paths } from './urls.ts';

type Json = Record<string, unknown>;

const schemaOf = (schema: z.ZodType): Json => {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return json;
};
const text = { schema: { type: 'string' } };
const markdown = { 'text/markdown': text };
const redirect = (to: string): Json => ({
  description: `Redirect to ${to}.`,
  headers: { Location: { description: `Absolute URL of ${to}.`, schema: { type: 'string', format: 'uri' } } },
});

/** What each operation is, in words, and the bodies and headers particular to it (the rest is generic by status). */
const OPERATIONS: Record<
  RouteId,
  { description: string; responses?: Record<number, Json>; schema?: Json; params?: Record<string, string> }
> = {
  homepage: {
    description:
      'The English homepage (the Arabic one is /ar). Carries RFC 8288 `Link` headers to the discovery documents.',
    responses: {
      200: {
        headers: {
          Link: {
            description: 'Links with relations api-catalog, service-desc, service-doc and service-meta.',
            schema: { type: 'string' },
          },
        },
      },
    },
  },
  getProfilePage: { description: 'A public link-in-bio profile.', params: { page: 'Profile slug.' } },
  getDigitalCard: {
    description:
      "The page of a digital business card, printed on or encoded in the physical card, or a redirect to the owner's website when the card is a plain redirect.",
    params: { cardId: 'Card identifier.' },
    responses: { 302: redirect("the owner's website (the card is a plain redirect)") },
  },
  getProfileQr: {
    description:
      "An SVG QR code of the profile's canonical URL (error correction M, a four-module quiet zone), for printing or showing on a screen.",
    params: { page: 'Profile slug.' },
  },
  getDigitalCardQr: {
    description:
      "An SVG QR code of the card's canonical URL /c/{cardId} (error correction M, a four-module quiet zone). For a redirect-mode card it still encodes /c/{cardId}, which redirects.",
    params: { cardId: 'Card identifier.' },
  },
  getDigitalCardContactQr: {
    description:
      "An SVG QR code holding the card's contact as a compact vCard 3.0 (N, FN, TEL, EMAIL, ORG, TITLE, URL; UTF-8): a phone saves the contact with no network. Page-mode cards only.",
    params: { cardId: 'Card identifier.' },
  },
  getProfilePageMarkdown: {
    description:
      'The Markdown twin of /p/{page}, whatever Accept says: what `Accept: text/markdown` on the page returns, at the URL its `Link: rel="alternate"` names.',
    params: { page: 'Profile slug.' },
  },
  getDigitalCardMarkdown: {
    description:
      'The Markdown twin of a page-mode card /c/{cardId}, whatever Accept says. A redirect-mode card has none (404).',
    params: { cardId: 'Card identifier.' },
  },
  getDigitalCardVcard: {
    description: 'The contact of a page-mode card as vCard 3.0 (UTF-8, CRLF, folded at 75 octets), for "Save contact".',
    params: { cardId: 'Card identifier.' },
    responses: {
      200: {
        headers: {
          'Content-Disposition': {
            description: "attachment; filename=…; filename*=UTF-8''… (ASCII with an RFC 5987 name for non-Latin names)",
            schema: { type: 'string' },
          },
        },
      },
    },
  },
  getBlogForPreferredLanguage: {
    description:
      'Redirects to the blog index in the language `Accept-Language` prefers (English when neither matches).',
    responses: {
      302: {
        ...redirect('/ar/blog or /en/blog'),
        headers: {
          ...(redirect('').headers as Json),
          Vary: { description: 'Always `Accept-Language`.', schema: { type: 'string' } },
        },
      },
    },
  },
  getBlogArticleList: {
    description:
      'Every published article in every language, newest first: slug, title, date (ISO 8601), absolute URL, language, topic keys and reading time in minutes. The WebMCP and MCP tools list_blog_articles read it (and filter it by language and topic).',
    schema: { type: 'array', items: schemaOf(articleListEntry) },
  },
  listBlogArticles: {
    description: `The first page of the articles in one language (${BLOG_SIZES.page} a page, newest first), linked to the next page with rel="next". Feeds: /{lang}/blog/rss.xml and /{lang}/blog/feed.json.`,
    params: { lang: 'Language of the blog.' },
  },
  getBlogArticle: {
    description: 'One article. Its translation, if any, is linked with `hreflang`.',
    params: { lang: 'Language of the article.', slug: 'Article slug.' },
  },
  getBlogFeed: {
    description: `RSS 2.0 feed of the blog in one language: the newest ${BLOG_SIZES.feed} articles with their summaries and topics.`,
    params: { lang: 'Language of the blog.' },
  },
  getBlogJsonFeed: {
    description: `JSON Feed 1.1 of the blog in one language: the newest ${BLOG_SIZES.feed} articles with their summaries, dates and topics.`,
    params: { lang: 'Language of the blog.' },
    schema: { $ref: '#/components/schemas/JsonFeed' },
  },
  listBlogArticlesPage: {
    description: `Page n of the blog index (${BLOG_SIZES.page} articles a page, newest first); page 1 is /{lang}/blog. Linked with rel="prev" and rel="next"; a page past the last is 404.`,
    params: { lang: 'Language of the blog.', n: 'Page number, from 2.' },
  },
  listBlogTopics: {
    description: 'The topics that have articles in this language, each with its article count and page.',
    params: { lang: 'Language of the blog.' },
  },
  listBlogTopicArticles: {
    description: `The articles on one topic in one language, newest first, ${BLOG_SIZES.page} a page; linked to the same topic in the other language. Topic keys are the same in every language.`,
    params: { lang: 'Language of the blog.', topic: 'Topic key, e.g. "privacy".' },
  },
  listBlogTopicArticlesPage: {
    description: "Page n of a topic's articles; page 1 is /{lang}/blog/topics/{topic}.",
    params: { lang: 'Language of the blog.', topic: 'Topic key.', n: 'Page number, from 2.' },
  },
  searchBlog: {
    description:
      "The blog's search page. Searching runs in the browser over the static Pagefind index under /pagefind/{lang}/ (a bundle per language, Arabic stemmed); the Markdown twin says how to find articles without it.",
    params: { lang: 'Language of the blog.' },
  },
  getSitemap: {
    description:
      'Every public page and article with hreflang alternates, profiles and cards included; a sitemap index of /sitemaps/{n}.xml past 50,000 URLs.',
  },
  getSitemapPart: {
    description: 'One part of the sitemap once /sitemap.xml has become a sitemap index.',
    params: { n: 'Part number, from 1.' },
  },
  getRobots: { description: 'Allows crawling of all public pages; disallows the owner app and /mcp.' },
  getLlmsTxt: { description: 'A Markdown overview of the site and its documents for language models (llmstxt.org).' },
  getApiCatalog: {
    description: 'RFC 9727 API catalog as an RFC 9264 linkset.',
    schema: { $ref: '#/components/schemas/Linkset' },
  },
  getOpenApi: { description: 'This document.', schema: { type: 'object' } },
  getApiDocs: {
    description: 'Human documentation of every endpoint and rule. The Markdown version is at /docs/api.md.',
  },
  getApiDocsMarkdown: { description: 'The Markdown version of /docs/api.' },
  getAuthMd: {
    description:
      'Agent registration and credential policy: what needs no credentials, and how to ask for operator-provisioned access.',
  },
  getMcpServerCard: {
    description: 'Identity, Streamable HTTP endpoint, protocol versions, capabilities and tools of the MCP server.',
    schema: { type: 'object' },
  },
  getMcpServerCardAtEndpoint: {
    description:
      "The MCP server card at the Streamable HTTP endpoint's /server-card (the SEP-2127 discovery draft): identity, endpoint, protocol versions and capabilities; tools are listed by the server itself.",
    schema: { type: 'object' },
  },
  getMcpCatalog: {
    description:
      'The MCP Catalog (discovery draft): one entry per MCP server of this origin, pointing at its server card.',
    schema: { type: 'object' },
  },
  getAiCatalog: {
    description: 'The AI Catalog: the MCP server card and the Agent Skills index.',
    schema: { type: 'object' },
  },
  getAgentSkillsIndex: {
    description:
      'Agent Skills Discovery 0.2.0: each skill with its description, files and sha256 digests of their bytes.',
    schema: { type: 'object' },
  },
  getAgentSkillFile: {
    description:
      'A skill that teaches an agent to read this site well (SKILL.md, with name and description in its front matter).',
    params: { skill: "The skill's name." },
  },
  mcp: {
    description: `Model Context Protocol over Streamable HTTP without sessions or authentication. Methods: initialize, ping, tools/list, tools/call, resources/list, resources/read. Tools: ${Object.keys(MCP_TOOLS).join(', ')}.`,
    responses: {
      200: {
        description:
          'The answer: a JSON-RPC 2.0 response, or for a batch an array of them (one per request, in order).',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcAnswer' } } },
      },
      202: { description: 'Only notifications (or responses) were sent: accepted, no body.' },
      404: {
        description:
          'On the 2026-07-28 revision, a method this server does not serve (subscriptions/listen: it holds no streams): the JSON-RPC error -32601, as the MCP SDK answers it.',
      },
    },
  },
  getHealth: {
    description: 'Whether the application and its database answer. Never cached.',
    responses: { 200: { $ref: '#/components/responses/Health' }, 503: { $ref: '#/components/responses/Health' } },
  },
  getProfileAlias: {
    description:
      "A short alias of a paid-plan owner's profile. Reserved paths (every route above, the owner app's paths, files at the root) are never aliases.",
    params: { alias: 'The alias.' },
    responses: { 302: redirect("the owner's /p/{page}") },
  },
};

/** The generic answer for a status of a declared route, before what is particular to the operation. */
function response(route: RouteDeclaration, status: number, op: (typeof OPERATIONS)[RouteId]): Json {
  const particular = op.responses?.[status];
  if (particular && ('$ref' in particular || 'content' in particular || route.served === 'agents')) return particular;
  // A request too slow or too large to be read as one: the connection's answer, before any route is known.
  if (status === 408 || status === 431) return { $ref: '#/components/responses/RequestUnread' };
  // The MCP endpoint refuses as JSON-RPC, whatever the status (413 before reading the body, 503 when full).
  if (route.served === 'agents') return { $ref: '#/components/responses/JsonRpcError' };
  let generic: Json;
  if (status === 200) {
    const headers: Json = {};
    if (route.negotiated) headers.Vary = { $ref: '#/components/headers/VaryAccept' };
    if (route.cache === 'discovery') headers['Cache-Control'] = { $ref: '#/components/headers/DiscoveryCache' };
    generic = {
      description: route.negotiated
        ? `${route.summary}: HTML by default; Markdown with \`Accept: text/markdown\`.`
        : `${route.summary}.`,
      ...(Object.keys(headers).length ? { headers } : {}),
      content: Object.fromEntries(route.media.map((type) => [type, bodyOf(route, type, op.schema)])),
    };
  } else if (status === 302 || status === 301) {
    generic = redirect('the target');
  } else if (status === 404) {
    return { $ref: '#/components/responses/NotFoundPage' };
  } else if (status === 503) {
    return { $ref: '#/components/responses/Unavailable' };
  } else {
    return { $ref: '#/components/responses/JsonRpcError' };
  }
  if (!particular) return generic;
  return {
    ...generic,
    ...particular,
    headers: { ...(generic.headers as Json | undefined), ...(particular.headers as Json | undefined) },
  };
}

/**
 * A success body's schema: text formats (HTML, Markdown, XML, SVG, vCard, plain text) are strings; a JSON type must
 * have the operation's own schema, so that no JSON document is ever described as a string (which a validating proxy
 * flags on every answer).
 */
function bodyOf(route: RouteDeclaration, type: string, schema: Json | undefined): Json {
  if (!/[/+]json$/.test(type)) return text;
  if (!schema) throw new Error(`OpenAPI: ${route.path} answers ${type} but its operation declares no schema`);
  return { schema };
}

/**
 * Every other status any operation may answer: 304 to a matching If-None-Match (no body), 400 for a URL that cannot
 * name a page (broken percent-encoding, NUL, backslash, dot segments), 405 with Allow for another method on something
 * that exists, 408/414/431 for a request too slow or too large to read, and the negotiated 500 page.
 */
const OTHER_STATUSES: Json = {
  description:
    'Any operation may also answer 304 Not Modified to a matching If-None-Match (no body), 400 for a URL that cannot name a page, 405 with Allow for another method on a resource that exists, 408, 414 or 431 for a request too slow or too large, and 500 (an error page, negotiated like a 404).',
  content: { 'text/plain': text, 'text/html': text, ...markdown },
};

function operation(id: RouteId, route: RouteDeclaration): Json {
  const op = OPERATIONS[id];
  const parameters = Object.entries(route.params ?? {}).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    description: op.params?.[name] ?? name,
    // An alias is a slug that is no reserved segment: a refinement JSON Schema cannot carry, said as `not`.
    schema:
      schema === aliasSchema ? { ...schemaOf(schema), not: { enum: [...RESERVED_SEGMENTS].sort() } } : schemaOf(schema),
  }));
  const extra: Json =
    id === 'mcp'
      ? {
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
        }
      : parameters.length
        ? { parameters }
        : {};
  return {
    [route.method.toLowerCase()]: {
      operationId: id,
      summary: route.summary,
      description: op.description,
      tags: [route.tag],
      security: [],
      ...extra,
      responses: {
        ...Object.fromEntries(route.statuses.map((status) => [String(status), response(route, status, op)])),
        ...(route.served === 'agents' ? {} : { default: { $ref: '#/components/responses/OtherStatuses' } }),
      },
    },
  };
}

export function openApiDocument(config: PublicConfig): Json {
  const doc = (path: string) => absoluteUrl(config.baseUrl, path);
  return {
    openapi: '3.1.0',
    info: {
      title: `${config.serviceName} public API`,
      version: '1.0.0',
      summary: 'Read-only public pages, discovery documents, health and an MCP endpoint.',
      description:
        `Public, read-only surface for link-in-bio profiles, digital business cards and a blog in ${describeLangNames()}. ` +
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
    paths: Object.fromEntries(
      (Object.entries(ROUTES) as [RouteId, RouteDeclaration][]).map(([id, route]) => [
        route.path,
        operation(id, route),
      ]),
    ),
    components: {
      securitySchemes: {
        token: {
          type: 'apiKey',
          in: 'cookie',
          name: 'token',
          description:
            'Session cookie of a signed-in account owner in the web app. Not issued to automated clients; no operation here requires it.',
        },
      },
      headers: {
        VaryAccept: {
          description: 'Always includes `Accept`: the same URL answers HTML or Markdown.',
          schema: { type: 'string' },
        },
        DiscoveryCache: { description: `\`${CACHE.discovery}\`.`, schema: { type: 'string' } },
      },
      responses: {
        NotFoundPage: {
          description:
            'Not found: an HTML error page in the language of the path, or Markdown with `Accept: text/markdown`.',
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
          headers: { 'Cache-Control': { description: `\`${CACHE.none}\`.`, schema: { type: 'string' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } },
        },
        JsonRpcError: {
          description:
            'A JSON-RPC 2.0 error response with id null (the request was refused before any message was read); for a batch none of whose elements is a JSON-RPC message, one such error per element.',
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  { $ref: '#/components/schemas/JsonRpcErrorResponse' },
                  { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/JsonRpcErrorResponse' } },
                ],
              },
            },
          },
        },
        OtherStatuses: OTHER_STATUSES,
        RequestUnread: {
          description:
            'The request was not read: 408 when it did not arrive whole in time, 431 when its request line and headers hold more than 16 KiB. Plain text, and the connection is closed.',
          content: { 'text/plain': text },
        },
      },
      schemas: {
        Health: {
          type: 'object',
          required: ['status', 'service', 'time'],
          properties: {
            status: { type: 'string', enum: ['ok', 'degraded'] },
            service: { type: 'string', description: 'Constant name of the service.' },
            time: { type: 'string', format: 'date-time' },
            reason: {
              type: 'string',
              description:
                'When degraded: why, in words (the database does not answer, or the process is shedding load and why).',
            },
            replica: {
              type: 'object',
              description: 'On a sidecar reading a PostgreSQL standby: how far behind the primary its data is.',
              required: ['newestCommitAt', 'replayLagMs'],
              properties: {
                newestCommitAt: {
                  type: ['string', 'null'],
                  format: 'date-time',
                  description:
                    'When the newest commit the standby has replayed was made on the primary (null before the first).',
                },
                replayLagMs: {
                  type: 'integer',
                  minimum: 0,
                  description: 'Replay lag while WAL is waiting to be replayed; 0 otherwise.',
                },
              },
            },
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
        JsonRpcAnswer: {
          oneOf: [
            { $ref: '#/components/schemas/JsonRpcResponse' },
            { type: 'array', minItems: 1, items: { $ref: '#/components/schemas/JsonRpcResponse' } },
          ],
        },
        JsonFeed: {
          type: 'object',
          description: 'JSON Feed 1.1 (https://jsonfeed.org/version/1.1).',
          required: ['version', 'title', 'items'],
          properties: {
            version: { const: 'https://jsonfeed.org/version/1.1' },
            title: { type: 'string' },
            home_page_url: { type: 'string', format: 'uri' },
            feed_url: { type: 'string', format: 'uri' },
            description: { type: 'string' },
            language: { type: 'string' },
            authors: {
              type: 'array',
              items: {
                type: 'object',
                properties: { name: { type: 'string' }, url: { type: 'string', format: 'uri' } },
              },
            },
            items: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id'],
                properties: {
                  id: { type: 'string' },
                  url: { type: 'string', format: 'uri' },
                  title: { type: 'string' },
                  summary: { type: 'string' },
                  content_text: { type: 'string' },
                  content_html: { type: 'string' },
                  date_published: { type: 'string', format: 'date-time' },
                  date_modified: { type: 'string', format: 'date-time' },
                  language: { type: 'string' },
                  tags: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
        },
        JsonRpcResponse: {
          type: 'object',
          required: ['jsonrpc'],
          properties: {
            jsonrpc: { const: '2.0' },
            id: { type: ['string', 'integer', 'null'] },
            result: { type: 'object' },
            error: { $ref: '#/components/schemas/JsonRpcErrorObject' },
          },
        },
        JsonRpcErrorResponse: {
          type: 'object',
          required: ['jsonrpc', 'id', 'error'],
          properties: {
            jsonrpc: { const: '2.0' },
            id: { type: ['string', 'integer', 'null'] },
            error: { $ref: '#/components/schemas/JsonRpcErrorObject' },
          },
        },
        JsonRpcErrorObject: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'integer', examples: [-32700, -32600, -32601, -32602, -32000] },
            message: { type: 'string' },
            data: {},
          },
        },
      },
    },
  };
}
