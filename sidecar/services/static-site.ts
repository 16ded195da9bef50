// The built site (dist/client) held in memory: every file with its bytes, its build's compressed copies, type,
// ETag and cache policy.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENCODING_SUFFIX, ENCODINGS, type Encoding } from '../../src/lib/compression.ts';
import { filesUnder } from '../../src/lib/files.ts';
import { typeOf } from '../../src/lib/media-types.ts';
import { CACHE, isFingerprinted, staticRouteOf } from '../../src/lib/surface.ts';
import { twinPath } from '../../src/lib/urls.ts';
import { makeAsset, type Asset, type Page } from '../asset.ts';

/** The declared cache rule of a file of the build; fingerprinted files for a year; anything else a page's. */
function cacheControlFor(urlPath: string): string {
  if (isFingerprinted(urlPath)) return CACHE.immutable;
  const route = staticRouteOf(urlPath);
  return route ? CACHE[route.cache] : CACHE.page;
}

/** Whether a file of the build is readable by agents in browsers on any origin (CORS `*`), as its route declares. */
export function corsFor(urlPath: string): boolean {
  return staticRouteOf(urlPath)?.cors ?? false;
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
        this.files.set(
          urlPath,
          makeAsset(readFileSync(full), type, cacheControlFor(urlPath), copiesOf(root, file, files)),
        );
      }
    }
    for (const [pagePath, asset] of html) {
      const markdown = this.files.get(twinPath(pagePath));
      if (!markdown) throw new Error(`the build has no Markdown twin for ${pagePath}; rebuild with npm run build`);
      this.pages.set(pagePath, { html: asset, markdown });
    }
  }
}
