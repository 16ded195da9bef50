// Every GET of the surface but /mcp: the site reader resolves the path, and this translates its answer into HTTP
// (negotiation in, status, headers and body out). A database failure is thrown on to the app's one error mapping.
import { OWNER_HSTS } from '../../src/lib/owner-domains.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CACHE, edgeLiveUntil, pathOf } from '../../src/lib/surface.ts';
import type { ErrorPages } from '../error-pages.ts';
import { preferredLang, prefersMarkdown } from '../negotiation.ts';
import { sendAsset } from '../send.ts';
import { mcpMethodNotAllowed } from './mcp.ts';
import { ALL_LIVE, entityTag } from '../services/entities.ts';
import type { ReadPreferences, Resolution, SiteReader } from '../services/site-reader.ts';

function preferencesOf(request: FastifyRequest): ReadPreferences {
  const acceptLanguage = request.headers['accept-language'];
  return { markdown: prefersMarkdown(request.headers), lang: preferredLang(request.headers), acceptLanguage };
}

/** How live answers name their entity to edges: the header (xkey, Surrogate-Key, Cache-Tag) and its list separator. */
export interface EdgeTags {
  header: string | undefined;
  separator: string;
}

/** Cloudflare's Cache-Tag lists tags with commas; xkey and Surrogate-Key with spaces. */
export function edgeTags(header: string | undefined): EdgeTags {
  return { header, separator: header?.toLowerCase() === 'cache-tag' ? ',' : ' ' };
}

function sendResolution(
  request: FastifyRequest,
  reply: FastifyReply,
  resolution: Resolution,
  errors: ErrorPages,
  edge: EdgeTags,
) {
  if (resolution.entity) {
    // An edge keeps a live answer until the purger names its entity; browsers revalidate as Cache-Control says.
    reply.header(
      'cdn-cache-control',
      resolution.freshUntil === undefined ? CACHE.edgeLive : edgeLiveUntil(resolution.freshUntil, Date.now()),
    );
    if (edge.header) reply.header(edge.header, `${entityTag(resolution.entity)}${edge.separator}${ALL_LIVE}`);
  }
  switch (resolution.kind) {
    case 'asset':
      return sendAsset(request, reply.headers(resolution.headers), resolution.asset);
    case 'redirect':
      return reply.headers(resolution.headers).redirect(resolution.location, resolution.status);
    case 'document':
      return reply.headers(resolution.headers).code(resolution.status).type(resolution.type).send(resolution.body);
    case 'not-found':
      return errors.send(request, reply, 404, request.sitePath);
    case 'misdirected':
      // RFC 9110 §15.5.20: this server does not answer for that host; a client may try another connection.
      return reply
        .code(421)
        .header('cache-control', CACHE.none)
        .type('text/plain; charset=utf-8')
        .send('Misdirected request: no page of this service is at this host.\n');
  }
}

export function pageRoutes(
  app: FastifyInstance,
  {
    reader,
    errors,
    staticFiles,
    edge,
  }: { reader: SiteReader; errors: ErrorPages; staticFiles: boolean; edge: EdgeTags },
) {
  app.get('/*', async (request, reply) => {
    const host = hostOf(request);
    // An owner's domain is theirs: the platform's HSTS covers the platform's names under it (includeSubDomains), and
    // would force every name under an owner's apex onto HTTPS for a year. Theirs alone, there.
    if (!reader.isPlatformHost(host) && reply.hasHeader('strict-transport-security'))
      reply.header('strict-transport-security', OWNER_HSTS);
    const resolution = await reader.resolve(request.sitePath, preferencesOf(request), {
      staticFiles,
      rawUrl: request.raw.url ?? '/',
      host,
      // Known before the answer is made: a request shed or failed there is counted under its route, not as static.
      onRoute: (route) => (request.surfaceRoute = route),
    });
    return sendResolution(request, reply, resolution, errors, edge);
  });
  // Any other method: a resource that exists takes only GET and HEAD (RFC 9110: 405 with Allow; OPTIONS says so with
  // 204). A path that names nothing stays a 404, whatever the method. Whether it exists does not depend on who serves
  // the build's files: a front sends every such request here (deploy/nginx.conf).
  app.setNotFoundHandler(async (request, reply) => {
    // /mcp answers every method it does not take the same way (WebDAV's and others the router does not know included).
    if (request.sitePath === pathOf('mcp') && request.method !== 'GET' && request.method !== 'HEAD')
      return mcpMethodNotAllowed(reply);
    if (request.method !== 'GET' && request.method !== 'HEAD' && request.sitePath) {
      const resolution = await reader.resolve(request.sitePath, preferencesOf(request), {
        staticFiles: true,
        rawUrl: request.raw.url ?? '/',
        host: hostOf(request),
      });
      if (resolution.kind === 'misdirected') return sendResolution(request, reply, resolution, errors, edge);
      if (resolution.kind !== 'not-found') {
        reply.header('allow', ALLOW).header('cache-control', CACHE.none);
        if (request.method === 'OPTIONS') return reply.code(204).send();
        return reply
          .code(405)
          .type('text/plain; charset=utf-8')
          .send(`Method not allowed: ${request.method} is not taken here; this resource answers ${ALLOW}.\n`);
      }
    }
    return errors.send(request, reply, 404, request.sitePath || '/');
  });
}

const ALLOW = 'GET, HEAD';

/**
 * The request's host as the reader compares it: the Host header as received, lower case, without its port or a
 * trailing dot (RFC 9110). Not Fastify's `hostname`, which behind a trusted proxy reads X-Forwarded-Host: a header any
 * client may send through the front, which would have had an owner's page answered, and kept by an edge that keys by
 * Host, at the platform's address. The front and the edge pass the client's Host on as it came.
 */
function hostOf(request: FastifyRequest): string | undefined {
  const host = request.headers.host;
  if (!host) return undefined;
  const bare = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  return bare.toLowerCase().replace(/\.$/, '');
}
