// The built site (dist/client) held in memory: every file with its bytes, type, ETag and cache policy.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { filesUnder } from '../../src/lib/files.ts';
import { CACHE, ROUTES, staticRouteOf, type RouteDeclaration } from '../../src/lib/surface.ts';
import { SERVER_CARD_TYPE } from '../../src/lib/agent-discovery.ts';
import { paths, twinPath } from '../../src/lib/urls.ts';

export { CACHE };

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
}

/** A page: its HTML and its Markdown twin, both served at the page's URL. */
export interface Page {
  html: Asset;
  markdown: Asset;
}

/** Media types by extension (the front's nginx.conf is generated from this too). */
export const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

/** Files whose media type is not told by their extension. */
export const TYPES_BY_PATH: Record<string, string> = {
  [paths.apiCatalog]: 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
  [paths.mcpServerCardDraft]: SERVER_CARD_TYPE,
  [paths.rss('ar')]: 'application/rss+xml; charset=utf-8',
  [paths.rss('en')]: 'application/rss+xml; charset=utf-8',
};

const declared: RouteDeclaration[] = Object.values(ROUTES);

/** Files of the build whose declared cache rule is `discovery` (an hour); the live sitemap is the sidecar's. */
export const DISCOVERY: ReadonlySet<string> = new Set(declared.filter((r) => r.served === 'static' && r.cache === 'discovery').map((r) => r.path));


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

export function makeAsset(body: Buffer, type: string, cacheControl: string): Asset {
  // Assets are kept for long. A small Buffer is often a view into Node's shared 8 KiB pool, and keeping it would
  // keep the whole slab: copy it to memory of its own (with a cache of 5,000 pages, 16 MB of pinned slabs).
  if (body.byteLength !== body.buffer.byteLength) {
    const own = Buffer.allocUnsafeSlow(body.byteLength);
    body.copy(own);
    body = own;
  }
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  return { body, type, etag, cacheControl };
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
    for (const file of filesUnder(root)) {
      // The precompressed copies are for a front (see src/integrations/precompress.ts), not URLs of their own.
      if (/\.(gz|br)$/.test(file)) continue;
      const urlPath = `/${file}`;
      const full = join(root, file);
      const ext = extname(file);
      const type = TYPES_BY_PATH[urlPath] ?? TYPES[ext] ?? 'application/octet-stream';
      if (ext === '.html') {
        const pagePath = urlPath === '/index.html' ? '/' : urlPath.slice(0, -'.html'.length);
        html.set(pagePath, makeAsset(readFileSync(full), type, cacheControlFor(pagePath)));
      } else {
        this.files.set(urlPath, makeAsset(readFileSync(full), type, cacheControlFor(urlPath)));
      }
    }
    for (const [pagePath, asset] of html) {
      const markdown = this.files.get(twinPath(pagePath));
      if (!markdown) throw new Error(`the build has no Markdown twin for ${pagePath}; rebuild with npm run build`);
      this.pages.set(pagePath, { html: asset, markdown });
    }
  }
}
