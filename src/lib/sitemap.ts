// Sitemap XML (sitemaps.org with xhtml:link alternates), written by the `sitemap` library for the build and the sidecar.
import { createDocument } from '@mixmark-io/domino';
import { headOf } from './markdown.ts';
import { SitemapStream, streamToPromise } from 'sitemap';

export interface SitemapEntry {
  url: string;
  lastmod?: string;
  /** hreflang alternates, x-default included, each with an absolute URL. */
  links?: { lang: string; url: string }[];
}

/** The static pages' sitemap entries (JSON), beside dist/client, for the sidecar to add the live pages to. */
export const STATIC_SITEMAP_FILE = 'sitemap-static.json';

/** The namespaces a sitemap here declares: xhtml, for the hreflang alternates. */
export const SITEMAP_XMLNS = { news: false, video: false, image: false, xhtml: true };

export async function sitemapXml(entries: Iterable<SitemapEntry>): Promise<string> {
  const stream = new SitemapStream({ xmlns: SITEMAP_XMLNS });
  const done = streamToPromise(stream);
  for (const entry of entries) stream.write(entry);
  stream.end();
  return (await done).toString('utf8');
}

/** The sitemap entry a built HTML page describes in its head, or undefined for a noindex page. */
export function sitemapEntryOf(page: string | Document): SitemapEntry | undefined {
  const doc = typeof page === 'string' ? createDocument(page, true) : page;
  const head = headOf(doc);
  if (/noindex/i.test(head.find('META', 'name', 'robots')?.getAttribute('content') ?? '')) return undefined;
  const url = head.find('LINK', 'rel', 'canonical')?.getAttribute('href');
  if (!url) return undefined;
  const links = head
    .all('LINK', 'rel', 'alternate')
    .filter((l) => l.hasAttribute('hreflang'))
    .map((l) => ({ lang: l.getAttribute('hreflang') ?? '', url: l.getAttribute('href') ?? '' }));
  const lastmod = head.find('META', 'property', 'article:modified_time')?.getAttribute('content') ?? undefined;
  return { url, ...(lastmod ? { lastmod } : {}), ...(links.length > 0 ? { links } : {}) };
}
