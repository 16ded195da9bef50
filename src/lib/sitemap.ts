// Sitemap XML (sitemaps.org with xhtml:link alternates), written by the `sitemap` library for the build and the sidecar.
import { createDocument } from '@mixmark-io/domino';
import { SitemapStream, streamToPromise } from 'sitemap';

export interface SitemapEntry {
  url: string;
  lastmod?: string;
  /** hreflang alternates, x-default included, each with an absolute URL. */
  links?: { lang: string; url: string }[];
}

export async function sitemapXml(entries: Iterable<SitemapEntry>): Promise<string> {
  const stream = new SitemapStream({ xmlns: { news: false, video: false, image: false, xhtml: true } });
  const done = streamToPromise(stream);
  for (const entry of entries) stream.write(entry);
  stream.end();
  return (await done).toString('utf8');
}

/** The sitemap entry a built HTML page describes in its head, or undefined for a noindex page. */
export function sitemapEntryOf(html: string): SitemapEntry | undefined {
  const doc = createDocument(html, true);
  if (/noindex/i.test(doc.querySelector('meta[name="robots"]')?.getAttribute('content') ?? '')) return undefined;
  const url = doc.querySelector('link[rel="canonical"]')?.getAttribute('href');
  if (!url) return undefined;
  const links = Array.from(doc.querySelectorAll('link[rel="alternate"][hreflang]')).map((l) => ({
    lang: l.getAttribute('hreflang') ?? '',
    url: l.getAttribute('href') ?? '',
  }));
  const lastmod = doc.querySelector('meta[property="article:modified_time"]')?.getAttribute('content') ?? undefined;
  return { url, ...(lastmod ? { lastmod } : {}), ...(links.length > 0 ? { links } : {}) };
}
