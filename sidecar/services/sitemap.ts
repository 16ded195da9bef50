// The sitemap: the static pages' entries from the build plus every published profile and active page-mode card,
// rebuilt when the store changes. Past 50,000 URLs /sitemap.xml is an index of /sitemaps/{n}.xml. Throws
// StoreUnavailableError when the database cannot be read: crawlers get a 503 and retry, never a partial list.
import { readFileSync } from 'node:fs';
import { SitemapIndexStream, streamToPromise } from 'sitemap';
import { sitemapXml, type SitemapEntry } from '../../src/lib/sitemap.ts';
import { CACHE } from '../../src/lib/surface.ts';
import { absoluteUrl, paths } from '../../src/lib/urls.ts';
import type { Store } from '../store/store.ts';
import type { Freshness } from './freshness.ts';
import { makeAsset, type Asset } from './static-site.ts';

export const SITEMAP_URL_LIMIT = 50_000;
const XML = 'application/xml';

interface SitemapDeps {
  baseUrl: string;
  store: Store;
  freshness: Freshness;
  staticEntriesFile: string;
  limit?: number | undefined;
}

export class Sitemap {
  private readonly staticEntries: SitemapEntry[];
  private readonly deps: SitemapDeps;
  private built: { index: Asset; children: Asset[] } | undefined;
  /** A build under way: requests that find the sitemap stale share it (rebuilt once per change). */
  private building: Promise<{ index: Asset; children: Asset[] }> | undefined;
  /** Bumped by every change that touches the sitemap: a build that saw one while running is not kept. */
  private changes = 0;

  constructor(deps: SitemapDeps) {
    this.deps = deps;
    this.staticEntries = JSON.parse(readFileSync(deps.staticEntriesFile, 'utf8')) as SitemapEntry[];
    // Profiles and cards are its live part; an alias is not in it.
    deps.freshness.listen((event) => {
      if (event.reset || event.changes.some((c) => c.kind !== 'alias')) {
        this.changes++;
        this.built = undefined;
      }
    });
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
    await this.deps.freshness.sync();
    if (this.built) return this.built;
    this.building ??= this.build().finally(() => {
      this.building = undefined;
    });
    const built = await this.building;
    return built;
  }

  private async build() {
    const { baseUrl, store } = this.deps;
    const limit = this.deps.limit ?? SITEMAP_URL_LIMIT;
    const changes = this.changes;
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
    const built = { index, children: children.length > 1 ? children : [] };
    if (changes === this.changes) this.built = built;
    return built;
  }
}
