// The Open Graph image of a page: what it shows (the page's title, in its language, under the site's name and the
// blog's) and where the build puts it. The path is a hash of everything drawn, so a page's image changes name when
// its title does (no CDN ever holds a stale picture) and an unchanged one is reused from the build cache.
// Drawn by src/integrations/og-images.ts.
import { createHash } from 'node:crypto';
import { t } from './i18n.ts';
import type { Lang } from './locales.ts';
import type { PublicConfig } from './site-config.ts';

export const OG_WIDTH = 1200;
export const OG_HEIGHT = 630;
/** Raised when the drawing changes, so every image is drawn again. */
export const OG_TEMPLATE_VERSION = 1;

export interface OgCard {
  lang: Lang;
  /** The title drawn, as the page gives it. */
  title: string;
  /** The line above it: the site's name and the section. */
  kicker: string;
  /** The line at the foot: the site's host. */
  host: string;
}

/** The image's URL path: /_astro/og-{hash}.png (fingerprinted, so cached as immutable, never purged). */
export function ogImagePath(card: OgCard): string {
  const hash = createHash('sha256').update(JSON.stringify([OG_TEMPLATE_VERSION, card.lang, card.title, card.kicker, card.host])).digest('base64url').slice(0, 16);
  return `/_astro/og-${hash}.png`;
}

/** A blog page's card: its title under the site's name and the blog's, the site's host at the foot. */
export function blogCard(config: Pick<PublicConfig, 'baseUrl' | 'serviceName'>, lang: Lang, title: string): OgCard {
  return { lang, title, kicker: `${config.serviceName} · ${t(lang).blogTitle}`, host: new URL(config.baseUrl).host };
}
