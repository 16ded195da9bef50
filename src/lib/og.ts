// The Open Graph image of a page: what it shows (the page's title, in its language, under the site's name and the
// blog's) and where the build puts it. The path is a hash of everything drawn, so a page's image changes name when
// its title does (no CDN ever holds a stale picture) and an unchanged one is reused from the build cache.
// Drawn by src/integrations/og-images.ts.
import { addressesOf, type OwnerDomain } from './owner-domains.ts';
import { createHash } from 'node:crypto';
import { t } from './i18n.ts';
import type { Version } from './live-content.ts';
import type { Lang } from './locales.ts';
import { pathOf } from './surface.ts';
import type { PublicConfig } from './site-config.ts';
import type { FontKey } from './fonts.ts';
import { ogColours, type Theme } from './theme.ts';

export const OG_WIDTH = 1200;
export const OG_HEIGHT = 630;
/**
 * A hash of the code that draws the images (og-images.ts `ogDrawingHash`: og-draw.ts, its worker, the fonts' packages),
 * which astro.config.mjs defines for the pages: new drawing code is a new name for every image, so no cache anywhere
 * keeps an old picture under an immutable URL, and nobody has to remember to raise a version.
 */
declare const __OG_DRAWING__: string | undefined;

export interface OgCard {
  lang: Lang;
  /** The title drawn, as the page gives it. */
  title: string;
  /** The line above it: the site's name and the section on the site's own pages; the owner's role, or nothing, on theirs. */
  kicker: string;
  /** The line at the foot: the site's host. */
  host: string;
  /** The owner's avatar or photo (an image identifier, image-files.ts), drawn beside the title; none on articles. */
  picture?: string | null | undefined;
  /** The owner's colours (theme.ts ogColours: `#rrggbb`), when they chose a theme; else the platform's. */
  colours?: { ground: string; ink: string } | undefined;
  /** The owner's typeface (their theme's), for both scripts; else the site's (fonts.ts). */
  font?: FontKey | undefined;
}

function missingDrawing(): never {
  throw new Error('ogImagePath outside the build needs the drawing code hash (og-images.ts ogDrawingHash)');
}

/** The image's URL path: /_astro/og-{hash}.png (fingerprinted, so cached as immutable, never purged). */
export function ogImagePath(
  card: OgCard,
  drawing: string = typeof __OG_DRAWING__ === 'string' ? __OG_DRAWING__ : missingDrawing(),
): string {
  return `/_astro/og-${hashOf(card, [drawing], 16)}.png`;
}

/** A blog page's card: its title under the site's name and the blog's, the site's host at the foot. */
export function blogCard(config: Pick<PublicConfig, 'baseUrl' | 'serviceName'>, lang: Lang, title: string): OgCard {
  return { lang, title, kicker: `${config.serviceName} · ${t(lang).blogTitle}`, host: new URL(config.baseUrl).host };
}

/** An address as a person reads it at the foot of a picture: host and path, no scheme (`links.example.sa`). */
function printedAddress(url: string): string {
  const { host, pathname } = new URL(url);
  return pathname === '/' ? host : `${host}${pathname}`;
}

/**
 * A profile's card, drawn live by the sidecar (its name can change any moment): the owner's name in the profile's
 * language and their typeface, its address at the foot, which is its handle. No platform name on it (issue 62): the
 * picture is the owner's; the address says where it lives.
 */
export function profileCard(
  config: Pick<PublicConfig, 'baseUrl'>,
  profile: {
    slug: string;
    name: string;
    lang: Lang;
    avatar: string | null;
    theme?: Theme | null;
    version?: Version;
    domain?: string | null;
    domainCards?: boolean;
  },
): OgCard {
  return {
    // A name left untranslated is shaped in the profile's own language.
    lang: profile.version?.fallback.has('name') ? profile.version.primary : profile.lang,
    title: profile.name,
    kicker: '',
    host: printedAddress(
      addressesOf(
        config.baseUrl,
        profile.domain ? { host: profile.domain, page: profile.slug, cards: false } : null,
        true,
      ).url(pathOf('getProfilePage', { page: profile.slug })),
    ),
    picture: profile.avatar,
    ...(profile.theme ? { colours: ogColours(profile.theme) } : {}),
    ...(profile.theme?.font ? { font: profile.theme.font } : {}),
  };
}

/**
 * A page-mode card's card: its holder's name, their title and organisation above it (nothing when it names neither),
 * in the owner's typeface, the card's address at the foot.
 */
export function businessCard(
  config: Pick<PublicConfig, 'baseUrl'>,
  card: {
    cardId: string;
    name: string | null;
    jobTitle: string | null;
    organization: string | null;
    lang: Lang;
    photo: string | null;
    theme?: Theme | null;
    version?: Version;
    profileDomain?: OwnerDomain | null;
  },
): OgCard {
  // Named as its page names it: the holder, else the organisation, else the card.
  const title = card.name ?? card.organization ?? card.cardId;
  const role = [card.jobTitle, card.name ? card.organization : null].filter((part) => part).join(' · ');
  const untranslated = card.version?.fallback.has(card.name !== null ? 'name' : 'organization');
  return {
    // A title left untranslated is shaped in the card's own language.
    lang: untranslated && card.version ? card.version.primary : card.lang,
    title,
    kicker: role,
    host: printedAddress(
      addressesOf(config.baseUrl, card.profileDomain, card.profileDomain?.cards ?? false).url(
        pathOf('getDigitalCard', { cardId: card.cardId }),
      ),
    ),
    picture: card.photo,
    ...(card.theme ? { colours: ogColours(card.theme) } : {}),
    ...(card.theme?.font ? { font: card.theme.font } : {}),
  };
}

/**
 * A live picture's version, for its URL (`/p/layla/og.png?v=…`): a hash of what it shows, so a renamed profile's
 * picture is a new URL for the sites that keep a link preview by its URL, while the route itself stays one.
 */
export function ogVersion(card: OgCard): string {
  return hashOf(card, [], 12);
}

/** A hash of everything a card shows (and of what else draws it, `before`), `length` characters of base64url. */
function hashOf(card: OgCard, before: string[], length: number): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        ...before,
        card.lang,
        card.title,
        card.kicker,
        card.host,
        ...(card.picture ? [card.picture] : []),
        ...(card.colours ? [card.colours.ground, card.colours.ink] : []),
        ...(card.font ? [card.font] : []),
      ]),
    )
    .digest('base64url')
    .slice(0, length);
}
