// What the sidecar sends: a body with its media type, ETag, cache rule and compressed forms. Static files, live
// renders and the documents made from the data (the sitemap) are all assets; send.ts sends any of them, and the MCP
// tools read their text. The shared vocabulary of services/ and send.ts, so that no service reaches into another.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { compress, isCompressible, type Encoding } from '../src/lib/compression.ts';

/** A body in one content coding, with an ETag of its own (a cache must never answer one coding's 304 for another). */
export interface Encoded {
  body: Buffer;
  etag: string;
}

export interface Asset {
  /**
   * The body as it is (identity). For an asset kept only compressed (`compressedAsset`) it is made anew at each
   * read: read `size` first, and send with `send.ts`, which streams it instead.
   */
  readonly body: Buffer;
  /** The length of the identity body in bytes, known without reading it. */
  readonly size: number;
  type: string;
  etag: string;
  cacheControl: string;
  /** Whether the body is offered compressed: the answer then varies on Accept-Encoding, whichever coding is sent. */
  compressible: boolean;
  /** The body in `encoding` (made once, on first use, and kept with the asset), or undefined when not offered. */
  encoded(encoding: Encoding): Encoded | undefined;
  /** The identity body as a stream, for an asset kept only compressed: sent without holding it whole. */
  stream?(): Readable;
  /** The bytes it holds now: the bodies kept, compressed forms made so far included (none is made to count it). */
  held(): number;
  /** Inline styles of its own (an owner's theme) that its Content-Security-Policy must allow: `'sha256-…'` sources. */
  styleHashes?: readonly string[];
}

/** A page: its HTML and its Markdown twin, both served at the page's URL. */
export interface Page {
  html: Asset;
  markdown: Asset;
}

/**
 * An asset of `body`. Its compressed bodies are the build's copies when `precompressed` is given (static files: what
 * the build wrote, nothing more), else made from the body on first use when it is text worth compressing (live
 * renders: compressed once, kept with the rendered page in the live cache, never per request). `made` holds forms
 * made already (by the render pool); the others are made on first use.
 */
export function makeAsset(
  body: Buffer,
  type: string,
  cacheControl: string,
  precompressed?: Partial<Record<Encoding, Buffer>>,
  madeAlready: Partial<Record<Encoding, Buffer>> = {},
): Asset {
  body = ownMemory(body);
  const hash = createHash('sha1').update(body).digest('base64url');
  const compressible = precompressed ? Object.keys(precompressed).length > 0 : isCompressible(type, body.length);
  const encoded: Partial<Record<Encoding, Encoded>> = {};
  return {
    body,
    size: body.length,
    type,
    etag: `"${hash}"`,
    cacheControl,
    compressible,
    encoded(encoding) {
      if (!compressible) return undefined;
      const made = encoded[encoding];
      if (made) return made;
      const bytes = precompressed ? precompressed[encoding] : (madeAlready[encoding] ?? compress(body, encoding));
      if (!bytes) return undefined;
      return (encoded[encoding] = { body: ownMemory(bytes), etag: `"${hash}-${encoding}"` });
    },
    held: () =>
      ENCODINGS.reduce(
        (sum, e) => sum + (encoded[e]?.body.length ?? (precompressed ?? madeAlready)[e]?.length ?? 0),
        body.length,
      ),
  };
}

const ENCODINGS = ['br', 'gzip'] as const satisfies readonly Encoding[];

/**
 * An asset kept only in its compressed forms (gzip and brotli): a document of megabytes made from the
 * data, such as a sitemap part of 50,000 URLs (5 MB as it is, a twentieth of that compressed), which stays in memory
 * until the data it lists changes. Crawlers and edges take gzip; a client that takes neither coding gets the body
 * decompressed as it is sent, never held whole.
 */
export function compressedAsset(
  forms: Record<Encoding, Buffer>,
  size: number,
  type: string,
  cacheControl: string,
): Asset {
  const hash = createHash('sha1').update(forms.gzip).digest('base64url');
  const encoded: Record<Encoding, Encoded> = {
    gzip: { body: forms.gzip, etag: `"${hash}-gzip"` },
    br: { body: forms.br, etag: `"${hash}-br"` },
  };
  return {
    get body() {
      return gunzipSync(forms.gzip);
    },
    size,
    type,
    etag: `"${hash}"`,
    cacheControl,
    compressible: true,
    encoded: (encoding) => encoded[encoding],
    held: () => forms.gzip.length + forms.br.length,
    stream: () => {
      const gunzip = createGunzip();
      gunzip.end(forms.gzip);
      return gunzip;
    },
  };
}

/**
 * Assets are kept for long. A small Buffer is often a view into Node's shared 8 KiB pool, and keeping it would keep
 * the whole slab: copy it to memory of its own (with a cache of 5,000 pages, 16 MB of pinned slabs).
 */
function ownMemory(body: Buffer): Buffer {
  if (body.byteLength === body.buffer.byteLength) return body;
  const own = Buffer.allocUnsafeSlow(body.byteLength);
  body.copy(own);
  return own;
}
