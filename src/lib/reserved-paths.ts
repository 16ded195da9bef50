// The one table of reserved first path segments: the router never reads them as aliases, and the import refuses them.
import { OWNER_APP_PATHS } from './discovery.ts';
import { LANGS } from './site-config.ts';
import { paths } from './urls.ts';

const firstSegment = (path: string) => path.split('/')[1] ?? '';

export const RESERVED_SEGMENTS: ReadonlySet<string> = new Set([
  // Routes of this service.
  'p',
  'c',
  'blog',
  ...LANGS,
  ...Object.values(paths).flatMap((p) => (typeof p === 'string' ? [firstSegment(p)] : [])),
  // The owner web app.
  ...OWNER_APP_PATHS.map(firstSegment),
  'logout',
  'signup',
  'register',
  'settings',
  'admin',
  'app',
  // Folders and files of the built site, and names kept for the product's own pages.
  '_astro',
  'images',
  'global-scripts',
  'sitemaps',
  'index',
  'favicon.svg',
  'assets',
  'static',
  'about',
  'help',
  'support',
  'pricing',
  'terms',
  'privacy',
  'contact',
  'www',
]);

export function isReservedSegment(segment: string): boolean {
  return RESERVED_SEGMENTS.has(segment.toLowerCase());
}
