// Sending a prepared asset: the content coding the client takes, content type, ETag, Cache-Control, and the
// conditional requests of RFC 9110 §13: 412 for an If-Match no tag satisfies, 304 for a matching If-None-Match.
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CACHE } from '../src/lib/surface.ts';
import { preferredEncoding } from './negotiation.ts';
import type { Asset, Encoded } from './asset.ts';

export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, status = 200) {
  let encoded: Encoded | undefined;
  if (asset.compressible) {
    // Whichever coding is sent, the answer depends on Accept-Encoding: caches must know (RFC 9110 §12.5.5).
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
    const encoding = preferredEncoding(request.headers);
    encoded = encoding && asset.encoded(encoding);
    if (encoded) reply.header('content-encoding', encoding);
  }
  const etag = encoded?.etag ?? asset.etag;
  reply.header('content-type', asset.type).header('etag', etag);
  if (status === 200) {
    reply.header('cache-control', asset.cacheControl);
    // §13.2.2: If-Match first; a condition that is false is answered 412, on a GET too.
    if (!matchesIfMatch(request, etag)) {
      return reply.code(412).type('text/plain; charset=utf-8').header('cache-control', CACHE.none).send('Precondition failed: no entity tag in If-Match is this representation’s.\n');
    }
    if (isFresh(request, etag)) return reply.code(304).send();
  } else {
    // An error page must not be cached in place of the page that may exist a moment later.
    reply.header('cache-control', CACHE.error);
  }
  if (encoded) return reply.code(status).send(encoded.body);
  // An asset kept only compressed is decompressed as it is sent (never held whole), and not at all for HEAD: an empty
  // stream, since Fastify answers a HEAD without a body as `content-length: 0`, and the length is the GET's.
  if (!asset.stream) return reply.code(status).send(asset.body);
  reply.code(status).header('content-length', asset.size);
  return reply.send(request.method === 'HEAD' ? Readable.from([]) : asset.stream());
}

/** RFC 9110 §13.1.1: true without If-Match, for `*`, or when one listed tag is `etag` (strong comparison: a weak tag never matches). */
function matchesIfMatch(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-match'];
  if (header === undefined) return true;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim() === etag);
}

function isFresh(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
