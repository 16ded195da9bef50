// The shapes of live content (profiles and cards) as pages render them, and the rules that depend on the clock.
import type { Lang } from './site-config.ts';

export interface ProfileLink {
  title: string;
  url: string;
  pinned: boolean;
  startsAt: string | null;
  endsAt: string | null;
}

export interface Profile {
  slug: string;
  name: string;
  bio: string;
  lang: Lang;
  kind: 'person' | 'organization';
  /** The avatar's image identifier (image-files.ts): served by this site, never the owner's address. */
  avatar: string | null;
  plan: 'free' | 'paid';
  updatedAt: string;
  /** Enabled links, pinned first, then in the owner's order. Time windows apply when rendering. */
  links: ProfileLink[];
  socials: { network: string; url: string }[];
}

/**
 * How many of each list a profile or card holds at most: the import refuses more, and the server reads no more (a row
 * set another writer made larger is cut there), so that no page costs more to build than the largest valid one.
 */
export const OWNER_LISTS = { links: 100, socials: 20, phones: 5, emails: 5 } as const;

/**
 * How long each owner string may be, in characters: the import refuses longer, and the server cuts what another writer
 * stored longer there (owner-input.ts servedText), so that no page costs more than the largest valid one.
 */
export const OWNER_TEXT = {
  profileName: 80,
  bio: 500,
  linkTitle: 100,
  network: 40,
  cardName: 80,
  jobTitle: 100,
  organization: 100,
  address: 300,
  phone: 30,
  email: 254,
} as const;

export const PHONE_TYPES = ['cell', 'work', 'home'] as const;
export const EMAIL_TYPES = ['work', 'home'] as const;
/** A phone number as people write it, and what kind of line it is (a vCard TEL type). */
export interface CardPhone {
  number: string;
  type: (typeof PHONE_TYPES)[number];
}
export interface CardEmail {
  address: string;
  type: (typeof EMAIL_TYPES)[number];
}

export interface Card {
  cardId: string;
  mode: 'page' | 'redirect';
  redirectUrl: string | null;
  lang: Lang;
  name: string | null;
  jobTitle: string | null;
  organization: string | null;
  phones: CardPhone[];
  emails: CardEmail[];
  website: string | null;
  address: string | null;
  /** The photo's image identifier (image-files.ts). */
  photo: string | null;
  /** Slug of the owner's published profile, when the card links to one. */
  profileSlug: string | null;
  /** Whether that profile is a person's or an organization's (who the card's holder is to it). */
  profileKind: 'person' | 'organization' | null;
  updatedAt: string;
}

/** What a live page is rendered from: Astro.locals of /p/[page] and /c/[cardId]. */
export interface LiveLocals {
  profile?: Profile;
  card?: Card;
  /** The card's offline contact code holds the essentials only (sidecar/vcard.ts contactCode): the page says so. */
  contactCodeShort?: boolean;
  /** The instant the page is rendered for, ISO 8601: link time windows are judged against it. */
  now?: string;
}

export function isVisible(link: ProfileLink, now: number): boolean {
  return (!link.startsAt || Date.parse(link.startsAt) <= now) && (!link.endsAt || Date.parse(link.endsAt) > now);
}

/** When the set of visible links next changes (a window opens or closes), or Infinity. */
export function nextLinkChange(links: ProfileLink[], now: number): number {
  let next = Infinity;
  for (const l of links) {
    for (const t of [l.startsAt, l.endsAt]) {
      const at = t ? Date.parse(t) : NaN;
      if (at > now && at < next) next = at;
    }
  }
  return next;
}

/** `tel:` URI of a phone number as people write it (+971 4 000 0000 → tel:+97140000000). */
export function telHref(phone: string): string {
  return `tel:${phone.replace(/[^+\d]/g, '')}`;
}
