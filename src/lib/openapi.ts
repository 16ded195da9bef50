// The OpenAPI 3.1 description of the public surface, built for one BASE_URL. Its paths, operation ids, parameters,
// media types, statuses and words (summaries, descriptions, parameters' descriptions) come from the declaration in
// surface.ts; this module adds only the shapes of bodies and headers that a status of one operation has.
import { z } from 'zod';
import { articleListEntry, MCP_TOOLS } from './mcp-tools.ts';
import type { PublicConfig } from './site-config.ts';
import { describeLangNames } from './locales.ts';
import {
  pathOf,
  aliasSchema,
  CACHE,
  RESERVED_SEGMENTS,
  ROUTES,
  type RouteDeclaration,
  type RouteId,
} from './surface.ts';
import { absoluteUrl } from './urls.ts';

type Json = Record<string, unknown>;

const schemaOf = (schema: z.ZodType): Json => {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return json;
};
/** A parameter's schema: its description is the parameter's own, not said twice. */
const paramSchemaOf = (schema: z.ZodType): Json => {
  const { description: _said, ...json } = schemaOf(schema);
  return json;
};
const text = { schema: { type: 'string' } };
const markdown = { 'text/markdown': text };
const redirect = (to: string): Json => ({
  description: `Redirect to ${to}.`,
  headers: { Location: { description: `Absolute URL of ${to}.`, schema: { type: 'string', format: 'uri' } } },
});

/** What each operation is, in words, and the bodies and headers particular to it (the rest is generic by status). */
/** What a status of one operation carries beyond the declaration's generic answer: its own body schema, headers. */
const RESPONSES: Partial<Record<RouteId, { responses?: Record<number, Json>; schema?: Json }>> = {
  homepage: {
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
  getDigitalCard: {
    responses: { 302: redirect("the owner's website (the card is a plain redirect)") },
  },
  getDigitalCardVcard: {
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
    schema: { type: 'array', items: schemaOf(articleListEntry) },
  },
  getBlogJsonFeed: {
    schema: { $ref: '#/components/schemas/JsonFeed' },
  },
  getApiCatalog: {
    schema: { $ref: '#/components/schemas/Linkset' },
  },
  getOpenApi: {
    schema: { type: 'object' },
  },
  getMcpServerCard: {
    schema: { type: 'object' },
  },
  getMcpServerCardAtEndpoint: {
    schema: { type: 'object' },
  },
  getMcpCatalog: {
    schema: { type: 'object' },
  },
  getAiCatalog: {
    schema: { type: 'object' },
  },
  getAgentSkillsIndex: {
    schema: { type: 'object' },
  },
  mcp: {
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
    responses: { 200: { $ref: '#/components/responses/Health' }, 503: { $ref: '#/components/responses/Health' } },
  },
  getLiveness: {
    responses: {
      200: {
        description:
          'The process answers: always 200 while it runs. What it runs: the version, the commit its build was made from, and the build.',
        headers: { 'Cache-Control': { description: `\`${CACHE.none}\`.`, schema: { type: 'string' } } },
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['status', 'version', 'revision', 'build'],
              properties: {
                status: { type: 'string', enum: ['alive'] },
                version: { type: 'string', description: 'The version of the service this process runs.' },
                revision: {
                  type: 'string',
                  description:
                    'The commit its build was made from (40 hex digits, `-dirty` when the work tree had changes), or `unknown`.',
                },
                build: {
                  type: 'string',
                  description:
                    "Its build: the first twelve hex digits of the build's fingerprint (every input, content included).",
                },
              },
              additionalProperties: false,
            },
          },
        },
      },
    },
  },
  getProfileAlias: {
    responses: { 302: redirect("the owner's /p/{page}") },
  },
};

/** The generic answer for a status of a declared route, before what is particular to the operation. */
function response(route: RouteDeclaration, status: number, op: (typeof RESPONSES)[RouteId] = {}): Json {
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
  const op = RESPONSES[id] ?? {};
  const parameters = Object.entries(route.params ?? {}).map(([name, schema]) => ({
    name,
    in: 'path',
    required: true,
    description: schema.description ?? name,
    // An alias is a slug that is no reserved segment: a refinement JSON Schema cannot carry, said as `not`.
    schema:
      schema === aliasSchema
        ? { ...paramSchemaOf(schema), not: { enum: [...RESERVED_SEGMENTS].sort() } }
        : paramSchemaOf(schema),
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
      // The MCP endpoint's tools are named where they are declared (mcp-tools.ts).
      description:
        id === 'mcp' ? `${route.description} Tools: ${Object.keys(MCP_TOOLS).join(', ')}.` : route.description,
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
        `owners edit their content after signing in at /login, which automated clients must not use. See ${doc(pathOf('getAuthMd'))}.`,
      contact: { name: `${config.serviceName} operators`, email: config.contactEmail, url: doc(pathOf('getAuthMd')) },
      license: { name: 'Proprietary; content belongs to its owners', url: doc(pathOf('getAuthMd')) },
    },
    externalDocs: { description: 'Human documentation', url: doc(pathOf('getApiDocs')) },
    servers: [{ url: config.baseUrl, description: 'Production' }],
    // No operation needs credentials; the owner app's cookie is declared only to say so.
    security: [],
    tags: [
      { name: 'pages', description: 'Profiles, cards and blog pages (HTML or Markdown).' },
      { name: 'discovery', description: 'Machine-readable documents that describe the service.' },
      { name: 'agents', description: 'The Model Context Protocol endpoint.' },
      { name: 'operations', description: 'Health of the service, and whether a process answers at all.' },
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
