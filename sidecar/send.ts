// Sending a prepared asset: content type, ETag, Cache-Control, and 304 for a matching If-None-Match.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Asset } from './static-site.ts';

export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, status = 200) {
  reply.header('content-type', asset.type).header('etag', asset.etag);
  if (status === 200) {
    reply.header('cache-control', asset.cacheControl);
    if (isFresh(request, asset.etag)) return reply.code(304).send();
  } else {
    // An error page must not be cached in place of the page that may exist a moment later.
    reply.header('cache-control', 'no-cache');
  }
  return reply.code(status).send(asset.body);
}

function isFresh(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** The decoded path of a request, or undefined when its percent-encoding is broken or it holds a NUL byte. */
export function requestPath(request: FastifyRequest): string | undefined {
  const raw = (request.raw.url ?? '/').split('?')[0] ?? '/';
  try {
    const path = decodeURIComponent(raw);
    return path.includes('\0') ? undefined : path;
  } catch {
    return undefined;
  }
}
