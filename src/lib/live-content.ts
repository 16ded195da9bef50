// The shapes of live content (profiles and cards) as pages render them, derived from the tables' declaration
// (live-schema.ts), and the rules that depend on the clock.
import type { ShownRow, Tables } from './live-schema.ts';

export { EMAIL_TYPES, OWNER_LISTS, OWNER_TEXT, PHONE_TYPES, type CardEmail, type CardPhone } from './live-schema.ts';

/** A profile's link, as pages render it (enabled links only; time windows apply when rendering). */
export type ProfileLink = ShownRow<Tables['links']>;

/** A profile as pages render it: its columns (live-schema.ts), its links (pinned first, then in the owner's order)
 * and socials. Its avatar is the image's identifier (image-files.ts): served by this site, never the owner's address. */
export type Profile = ShownRow<Tables['profiles']> & {
  links: ProfileLink[];
  socials: ShownRow<Tables['socials']>[];
};

/** A card as pages render it: its columns, and its owner's profile (its slug and kind) while that is published. */
export type Card = ShownRow<Tables['cards']> & {
  profileSlug: string | null;
  /** Whether that profile is a person's or an organization's (who the card's holder is to it). */
  profileKind: 'person' | 'organization' | null;
};

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
