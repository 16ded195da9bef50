// The sitemap: the static pages' entries from the build plus every published profile and active page-mode card,
// rebuilt when the store changes. Past 50,000 URLs /sitemap.xml is an index of /sitemaps/{n}.xml. Throws
// StoreUnavailableError when the database cannot be read: crawlers get a 503 and retry, never a partial list.
import { readFileSync } from 'node:fs';
import { SitemapIndexStream, streamToPromise } from 'sitemap';
import { sitemapXml, type SitemapEntry } from '../../src/lib/sitemap.ts';
import { CACHE } from '../../src/lib/surface.ts';
import { absoluteUrl, paths } from '../../src/lib/urls.ts';
import type { Store } from '../store/store.ts';
import { makeAsset, type Asset } from './static-site.ts';

export const SITEMAP_URL_LIMIT = 50_000;
const XML = 'application/xml';

export class Sitemap {
  private readonly staticEntries: SitemapEntry[];
  private built: { version: string; index: Asset; children: Asset[] } | undefined;

  private readonly deps: { baseUrl: string; store: Store; staticEntriesFile: string; limit?: number | undefined };

  constructor(deps: { baseUrl: string; store: Store; staticEntriesFile: string; limit?: number | undefined }) {
    this.deps = deps;
    this.staticEntries = JSON.parse(readFileSync(deps.staticEntriesFile, 'utf8')) as SitemapEntry[];
  }

  /** /sitemap.xml: the list itself, or the index of its parts. */
  async index(): Promise<Asset> {
    return (await this.current()).index;
  }

  /** /sitemaps/{n}.xml, counting from 1; undefined when there is no such part. */
  async part(n: number): Promise<Asset | undefined> {
    return (await this.current()).children[n - 1];
  }

  private async current() {
    const { baseUrl, store } = this.deps;
    const limit = this.deps.limit ?? SITEMAP_URL_LIMIT;
    const version = await store.version();
    if (this.built?.version === version) return this.built;
    const entries: SitemapEntry[] = [...this.staticEntries, ...(await store.livePages()).map((p) => ({ url: absoluteUrl(baseUrl, p.path), lastmod: p.lastmod }))];
    const chunks: SitemapEntry[][] = [];
    for (let i = 0; i < entries.length; i += limit) chunks.push(entries.slice(i, i + limit));
    const children = await Promise.all(chunks.map(async (chunk) => makeAsset(Buffer.from(await sitemapXml(chunk)), XML, CACHE.discovery)));
    let index: Asset;
    if (children.length <= 1) {
      index = children[0] ?? makeAsset(Buffer.from(await sitemapXml([])), XML, CACHE.discovery);
    } else {
      const stream = new SitemapIndexStream();
      const done = streamToPromise(stream);
      children.forEach((_, n) => stream.write({ url: absoluteUrl(baseUrl, paths.sitemapPart(n + 1)) }));
      stream.end();
      index = makeAsset(await done, XML, CACHE.discovery);
    }
    this.built = { version, index, children: children.length > 1 ? children : [] };
    return this.built;
  }
}
