// The sitemap: the static pages' entries from the build plus every published profile and active page-mode card,
// rebuilt when the store changes. Past 50,000 URLs /sitemap.xml is an index of /sitemaps/{n}.xml. Throws
// StoreUnavailableError when the database cannot be read: crawlers get a 503 and retry, never a partial list.
import { readFileSync } from 'node:fs';
import { SitemapIndexStream, streamToPromise } from 'sitemap';
import { sitemapXml, type SitemapEntry } from '../../src/lib/sitemap.ts';
import { CACHE } from '../../src/lib/surface.ts';
import { absoluteUrl, paths } from '../../src/lib/urls.ts';
import type { LivePageKind, Store } from '../store/store.ts';
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

/** One part of a sitemap index: a slice of the static entries, or up to `limit` live pages of a kind from a key on. */
type Part = { kind: 'static'; entries: SitemapEntry[] } | { kind: LivePageKind; start: string };

export class Sitemap {
  private readonly staticEntries: SitemapEntry[];
  private readonly deps: SitemapDeps;
  /** The index (or the whole list, when it fits in one) and the parts it names; parts are built when asked. */
  private built: { index: Asset; parts: Part[] } | undefined;
  /** A build under way: requests that find the sitemap stale share it (rebuilt once per change). */
  private building: Promise<{ index: Asset; parts: Part[] }> | undefined;
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

  /**
   * /sitemaps/{n}.xml, counting from 1; undefined when there is no such part. Built on request from one keyset
   * page of the store and not kept: at a million profiles, twenty parts of 50,000 URLs would be 100 MB of memory.
   */
  async part(n: number): Promise<Asset | undefined> {
    const part = (await this.current()).parts[n - 1];
    if (!part) return undefined;
    const entries = part.kind === 'static' ? part.entries : await this.live(part.kind, part.start, this.limit);
    return makeAsset(Buffer.from(await sitemapXml(entries)), XML, CACHE.discovery);
  }

  private get limit(): number {
    return this.deps.limit ?? SITEMAP_URL_LIMIT;
  }

  private async live(kind: LivePageKind, start: string, limit: number): Promise<SitemapEntry[]> {
    return (await this.deps.store.livePagesFrom(kind, start, limit)).map((p) => ({ url: absoluteUrl(this.deps.baseUrl, p.path), lastmod: p.lastmod }));
  }

  private async current() {
    await this.deps.freshness.sync();
    if (this.built) return this.built;
    this.building ??= this.build().finally(() => {
      this.building = undefined;
    });
    return this.building;
  }

  private async build(): Promise<{ index: Asset; parts: Part[] }> {
    const { baseUrl, store } = this.deps;
    const limit = this.limit;
    const changes = this.changes;
    const counts = { profile: await store.livePageCount('profile'), card: await store.livePageCount('card') };
    let built: { index: Asset; parts: Part[] };
    if (this.staticEntries.length + counts.profile + counts.card <= limit) {
      // One list: small enough to build whole.
      const entries = [...this.staticEntries, ...(await this.live('profile', '', limit)), ...(await this.live('card', '', limit))];
      built = { index: makeAsset(Buffer.from(await sitemapXml(entries)), XML, CACHE.discovery), parts: [] };
    } else {
      const parts: Part[] = [];
      for (let i = 0; i < this.staticEntries.length; i += limit) parts.push({ kind: 'static', entries: this.staticEntries.slice(i, i + limit) });
      for (const kind of ['profile', 'card'] as const) {
        if (counts[kind] > 0) for (const start of await store.livePageStarts(kind, limit)) parts.push({ kind, start });
      }
      const stream = new SitemapIndexStream();
      const done = streamToPromise(stream);
      parts.forEach((_, n) => stream.write({ url: absoluteUrl(baseUrl, paths.sitemapPart(n + 1)) }));
      stream.end();
      built = { index: makeAsset(await done, XML, CACHE.discovery), parts };
    }
    if (changes === this.changes) this.built = built;
    return built;
  }
}
