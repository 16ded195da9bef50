// Lists of articles cut into pages: the blog index and each topic, in every language. The first page is the list's
// own URL; page n (n ≥ 2) is its URL with /page/n (src/lib/urls.ts), so an out-of-range page simply does not exist.
// Astro's paginate() would put page 1 at /page/1 or turn the slug segment into page numbers; this is the small rest.

import { BLOG_SIZES } from '../surface.ts';

/** Articles a page (surface.ts, where the route's description says it too). */
export const PAGE_SIZE = BLOG_SIZES.page;

export interface ListPage<T> {
  /** 1-based. */
  n: number;
  count: number;
  items: T[];
  path: string;
  prev?: string;
  next?: string;
  /** Every page's number and path, for the page links. */
  pages: { n: number; path: string }[];
}

/** The pages of `items` (at least one, empty when there are none). */
export function paginate<T>(items: readonly T[], pathOf: (n: number) => string, size = PAGE_SIZE): ListPage<T>[] {
  const count = Math.max(1, Math.ceil(items.length / size));
  const pages = Array.from({ length: count }, (_, i) => ({ n: i + 1, path: pathOf(i + 1) }));
  return pages.map(({ n, path }) => ({
    n,
    count,
    items: items.slice((n - 1) * size, n * size),
    path,
    ...(n > 1 ? { prev: pathOf(n - 1) } : {}),
    ...(n < count ? { next: pathOf(n + 1) } : {}),
    pages,
  }));
}

/** The page numbers a pager shows: the first, the last, and two either side of the current one; 0 marks a gap. */
export function pagerNumbers(n: number, count: number): number[] {
  const shown = [...new Set([1, n - 2, n - 1, n, n + 1, n + 2, count])]
    .filter((k) => k >= 1 && k <= count)
    .sort((a, b) => a - b);
  return shown.flatMap((k, i) => (i > 0 && k - shown[i - 1]! > 1 ? [0, k] : [k]));
}
