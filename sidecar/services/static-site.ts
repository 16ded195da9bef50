// The built site (dist/client) held in memory: every file with its bytes, its build's compressed copies, type,
// ETag and cache policy.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compress, ENCODING_SUFFIX, ENCODINGS, isCompressible, type Encoding } from '../../src/lib/compression.ts';
import { filesUnder } from '../../src/lib/files.ts';
import { typeOf } from '../../src/lib/media-types.ts';
import { CACHE, staticRouteOf } from '../../src/lib/surface.ts';
import { twinPath } from '../../src/lib/urls.ts';

export { CACHE };

/** A body in one content coding, with an ETag of its own (a cache must never answer one coding's 304 for another). */
export interface Encoded {
  body: Buffer;
  etag: string;
}

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
  /** Whether the body is offered compressed: the answer then varies on Accept-Encoding, whichever coding is sent. */
  compressible: boolean;
  /** The body in `encoding` (made once, on first use, and kept with the asset), or undefined when not offered. */
  encoded(encoding: Encoding): Encoded | undefined;
}

/** A page: its HTML and its Markdown twin, both served at the page's URL. */
export interface Page {
  html: Asset;
  markdown: Asset;
}


/** The declared cache rule of a file of the build; fingerprinted assets for a year; anything else a page's. */
function cacheControlFor(urlPath: string): string {
  if (urlPath.startsWith('/_astro/')) return CACHE.immutable;
  const route = staticRouteOf(urlPath);
  return route ? CACHE[route.cache] : CACHE.page;
}

/** Whether a file of the build is readable by agents in browsers on any origin (CORS `*`), as its route declares. */
export function corsFor(urlPath: string): boolean {
  return staticRouteOf(urlPath)?.cors ?? false;
}

/**
 * An asset of `body`. Its compressed bodies are the build's copies when `precompressed` is given (static files: what
 * the build wrote, nothing more), else made from the body on first use when it is text worth compressing (live
 * renders: compressed once, kept with the rendered page in the live cache, never per request).
 */
export function makeAsset(body: Buffer, type: string, cacheControl: string, precompressed?: Partial<Record<Encoding, Buffer>>): Asset {
  body = ownMemory(body);
  const hash = createHash('sha1').update(body).digest('base64url');
  const compressible = precompressed ? Object.keys(precompressed).length > 0 : isCompressible(type, body.length);
  const encoded: Partial<Record<Encoding, Encoded>> = {};
  return {
    body,
    type,
    etag: `"${hash}"`,
    cacheControl,
    compressible,
    encoded(encoding) {
      if (!compressible) return undefined;
      const made = encoded[encoding];
      if (made) return made;
      const bytes = precompressed ? precompressed[encoding] : compress(body, encoding);
      if (!bytes) return undefined;
      return (encoded[encoding] = { body: ownMemory(bytes), etag: `"${hash}-${encoding}"` });
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

/** The build's compressed copies of a file (x.br, x.gz beside x, among `files`), as precompress wrote them. */
function copiesOf(root: string, file: string, files: ReadonlySet<string>): Partial<Record<Encoding, Buffer>> {
  const copies: Partial<Record<Encoding, Buffer>> = {};
  for (const encoding of ENCODINGS) {
    const copy = file + ENCODING_SUFFIX[encoding];
    if (files.has(copy)) copies[encoding] = readFileSync(join(root, copy));
  }
  return copies;
}

export class StaticSite {
  /** Every file by its URL path, twins included (`/en/blog.md`). */
  readonly files = new Map<string, Asset>();
  /** Every HTML page by its clean URL path (`/`, `/en/blog`), with its twin. */
  readonly pages = new Map<string, Page>();

  readonly root: string;

  constructor(root: string) {
    this.root = root;
    const html = new Map<string, Asset>();
    const files = new Set(filesUnder(root));
    for (const file of files) {
      // The compressed copies (src/integrations/precompress.ts) are loaded with their file, not URLs of their own.
      if (ENCODINGS.some((encoding) => file.endsWith(ENCODING_SUFFIX[encoding]))) continue;
      const urlPath = `/${file}`;
      const full = join(root, file);
      const type = typeOf(urlPath);
      if (urlPath.endsWith('.html')) {
        const pagePath = urlPath === '/index.html' ? '/' : urlPath.slice(0, -'.html'.length);
        html.set(pagePath, makeAsset(readFileSync(full), type, cacheControlFor(pagePath), copiesOf(root, file, files)));
      } else {
        this.files.set(urlPath, makeAsset(readFileSync(full), type, cacheControlFor(urlPath), copiesOf(root, file, files)));
      }
    }
    for (const [pagePath, asset] of html) {
      const markdown = this.files.get(twinPath(pagePath));
      if (!markdown) throw new Error(`the build has no Markdown twin for ${pagePath}; rebuild with npm run build`);
      this.pages.set(pagePath, { html: asset, markdown });
    }
  }
}
