// Sending a prepared asset: the content coding the client takes, content type, ETag, Cache-Control, and the
// conditional requests of RFC 9110 §13: 412 for an If-Match no tag satisfies, 304 for a matching If-None-Match.
import { pipeline, Readable, Transform } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CACHE } from '../src/lib/surface.ts';
import { preferredEncoding } from './negotiation.ts';
import type { Asset, Encoded } from './asset.ts';
import { clientGone, currentClient } from './admission/clients.ts';
import { Overloaded } from './admission/fair-slots.ts';
import { allowStyles } from './security-headers.ts';

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
  if (asset.styleHashes) allowStyles(reply, asset.styleHashes);
  if (status === 200) {
    reply.header('cache-control', asset.cacheControl);
    // §13.2.2: If-Match first; a condition that is false is answered 412, on a GET too.
    if (!matchesIfMatch(request, etag)) {
      return reply
        .code(412)
        .type('text/plain; charset=utf-8')
        .header('cache-control', CACHE.none)
        .send('Precondition failed: no entity tag in If-Match is this representation’s.\n');
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
  if (request.method === 'HEAD') return reply.code(status).header('content-length', asset.size).send(Readable.from([]));
  // A small one (a sitemap of a few hundred entries, an index) is decompressed at once, a fraction of a millisecond:
  // only documents of megabytes take a slot, so that one client's many small uncompressed requests never wait on (or
  // are refused for) its share of them.
  if (asset.size <= SMALL_DOCUMENT) return reply.code(status).send(asset.body);
  const stream = asset.stream;
  const { limits } = request.server.admission;
  return decompressing(request).then((release) => {
    const body = paced(stream(), limits.identityBytesPerSecond);
    body.once('close', release);
    return reply
      .code(status)
      .header('content-length', asset.size)
      .send(Object.assign(body, { [STALL_MS]: limits.decompressStallMs }));
  });
}

/**
 * Clients reading a document kept only compressed (a sitemap part of 5 MB) without compression at once, at most
 * (DECOMPRESS_SLOTS, admission/limits.ts): each costs a decompressor and the buffers between it and a client that may
 * read slowly (a thousand of them held 300 MB that the allocator kept after they went). Crawlers and edges take gzip.
 * The slots are taken in turn between clients (fair-slots.ts), four a client at most; a client waits ten seconds at
 * most for one (about as long as one part takes at the paced rate below, and longer than a client that reads nothing
 * holds one), then is asked to retry; and one that stops reading for two seconds (DECOMPRESS_STALL_MS) loses its
 * connection and gives its slot back (sixteen clients that never read held every slot for the whole SEND_TIMEOUT_MS).
 * "Stops reading" is seen once the kernel's buffers between us are full: about 4 MB on loopback, four seconds at the
 * paced rate, so a client that never reads holds a slot about six. The slots are the app's (request.server.admission).
 *
 * Sent no faster than IDENTITY_BYTES_PER_SECOND, as nginx's `limit_rate` bounds a download: a 5 MB sitemap part in
 * five seconds. Unpaced, a client reading as fast as loopback allows spent the cores on decompressing and copying for
 * it: five such addresses, four slots each, left another reader's cached page p99 at five times its baseline; paced,
 * the sixteen cost 16 MiB/s of both (issue 46).
 */
/**
 * The largest document kept compressed that is decompressed whole rather than streamed through a slot (and the
 * largest uncompressed copy the edge keeps: deploy/edge.vcl).
 */
export const SMALL_DOCUMENT = 64 * 1024;
/** `body` passed on no faster than `bytesPerSecond`: each chunk leaves when the bytes before it are due. */
function paced(body: Readable, bytesPerSecond: number): Readable {
  const started = performance.now();
  let passed = 0;
  let timer: NodeJS.Timeout | undefined;
  const pace = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const due = started + (passed / bytesPerSecond) * 1000 - performance.now();
      passed += chunk.length;
      if (due <= 0) return done(null, chunk);
      timer = setTimeout(() => done(null, chunk), due);
    },
    destroy(error, done) {
      clearTimeout(timer);
      done(error);
    },
  });
  // An error or an early end of either (the client gone) ends both.
  return pipeline(body, pace, () => undefined);
}

/** On a streamed body: the longest its client may go without reading before its connection is closed (app.ts). */
export const STALL_MS = Symbol('stall bound');

async function decompressing(request: FastifyRequest): Promise<() => void> {
  const slots = request.server.admission.decompressing;
  const release = await slots.acquire(currentClient(), clientGone());
  if (!release)
    throw new Overloaded(
      `${slots.busy} clients are reading an uncompressed copy of a large document now; ask for it with Accept-Encoding: gzip, or retry`,
    );
  return release;
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
