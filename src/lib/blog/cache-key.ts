// The key under which Astro's incremental build (experimental.incrementalBuild) may reuse a page from the last build:
// a hash of every piece of data the page shows beyond its code (which Astro hashes itself, with the content entries
// it renders). Two builds give a page the same key only if it would come out the same, so a changed input is never
// served from the last build: an article's key holds its text and front matter, its neighbours, related articles
// and translations; a list page's holds every entry it lists and its page links; both hold the public configuration.
import { createHash } from 'node:crypto';
import type { Article } from './articles.ts';
import { config } from '../build-config.ts';
import type { ListPage } from './pagination.ts';

function cacheKey(...parts: unknown[]): string {
  return createHash('sha256')
    .update(JSON.stringify([config, ...parts]))
    .digest('base64url');
}

/** What an article page shows. */
export function articleKey(a: Article): string {
  return cacheKey(
    a.entry.id,
    a.entry.body,
    a.entry.data,
    a.translations,
    a.topics,
    a.minutes,
    a.newer,
    a.older,
    a.related,
  );
}

/** What a list page shows: its entries as the list draws them, its page links, and the pages it pairs with. */
export function listKey(page: ListPage<Article>, ...more: unknown[]): string {
  const items = page.items.map((a) => [
    a.path,
    a.entry.data.title,
    a.entry.data.description,
    a.date,
    a.minutes,
    a.topics,
  ]);
  return cacheKey(items, page.n, page.count, page.pages.length, ...more);
}
