// What the fairness bench's readers ask for the cheap kinds (reader.ts): the same path every time, answered from what
// the sidecar keeps (a cached live page, a static page, /health) or by a new visitor's connection (the cached page).
// The bench's bare shape (scripts/bench/fair.ts) answers these same paths with the sidecar's bytes.
import { DEFAULT_LANG } from '../../src/lib/locales.ts';
import { pathOf } from '../../src/lib/surface.ts';

export const CHEAP_PATHS = {
  cached: pathOf('getProfilePage', { page: 'layla' }),
  static: pathOf('listBlogArticles', { lang: DEFAULT_LANG }),
  health: pathOf('getHealth'),
  visitor: pathOf('getProfilePage', { page: 'layla' }),
} as const;
