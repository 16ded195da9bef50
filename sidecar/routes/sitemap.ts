// /sitemap.xml: the static pages' entries from the build plus every published profile and active page-mode card,
// rebuilt when the store changes. Past 50,000 URLs it is a sitemap index of /sitemaps/{n}.xml.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { SitemapIndexStream, streamToPromise } from 'sitemap';
import { sitemapXml, type SitemapEntry } from '../../src/lib/sitemap.ts';
import type { SiteConfig } from '../../src/lib/site-config.ts';
import { absoluteUrl, paths } from '../../src/lib/urls.ts';
import { CACHE, makeAsset, type Asset } from '../static-site.ts';
import { sendAsset } from '../send.ts';
import { StoreUnavailableError, type Store } from '../store/store.ts';

export const SITEMAP_URL_LIMIT = 50_000;
const XML = 'application/xml';

export function sitemapRoutes(app: FastifyInstance, opts: { config: SiteConfig; store: Store; staticEntriesFile: string; limit?: number | undefined }) {
  const { config, store } = opts;
  const limit = opts.limit ?? SITEMAP_URL_LIMIT;
  const staticEntries = JSON.parse(readFileSync(opts.staticEntriesFile, 'utf8')) as SitemapEntry[];
  let built: { version: string; index: Asset; children: Asset[] } | undefined;

  async function current() {
    const version = store.version();
    if (built?.version === version) return built;
    const entries: SitemapEntry[] = [
      ...staticEntries,
      ...store.livePages().map((p) => ({ url: absoluteUrl(config.baseUrl, p.path), lastmod: p.lastmod })),
    ];
    const chunks: SitemapEntry[][] = [];
    for (let i = 0; i < entries.length; i += limit) chunks.push(entries.slice(i, i + limit));
    const children = await Promise.all(chunks.map(async (chunk) => makeAsset(Buffer.from(await sitemapXml(chunk)), XML, CACHE.discovery)));
    let index: Asset;
    if (children.length <= 1) {
      index = children[0] ?? makeAsset(Buffer.from(await sitemapXml([])), XML, CACHE.discovery);
    } else {
      const stream = new SitemapIndexStream();
      const done = streamToPromise(stream);
      children.forEach((_, n) => stream.write({ url: absoluteUrl(config.baseUrl, `/sitemaps/${n + 1}.xml`) }));
      stream.end();
      index = makeAsset(await done, XML, CACHE.discovery);
    }
    built = { version, index, children: children.length > 1 ? children : [] };
    return built;
  }

  const unavailable = (err: unknown) => {
    if (!(err instanceof StoreUnavailableError)) throw err;
  };

  app.get(paths.sitemap, async (request, reply) => {
    try {
      return sendAsset(request, reply, (await current()).index);
    } catch (err) {
      unavailable(err);
      // Crawlers retry a 503 later; a partial sitemap would tell them that profiles had gone.
      return reply.code(503).header('retry-after', '60').type('text/plain; charset=utf-8').send('Sitemap temporarily unavailable\n');
    }
  });

  app.get<{ Params: { file: string } }>('/sitemaps/:file', async (request, reply) => {
    const n = /^(\d{1,6})\.xml$/.exec(request.params.file)?.[1];
    try {
      const child = n ? (await current()).children[Number(n) - 1] : undefined;
      if (!child) return reply.callNotFound();
      return sendAsset(request, reply, child);
    } catch (err) {
      unavailable(err);
      return reply.code(503).header('retry-after', '60').type('text/plain; charset=utf-8').send('Sitemap temporarily unavailable\n');
    }
  });
}
