// The shapes of live content (profiles and cards) as pages render them, derived from the tables' declaration
// (live-schema.ts), and the rules that depend on the clock.
import { addressesOf, type OwnerDomain } from './owner-domains.ts';
import type { CardPhone, ShownRow, Tables } from './live-schema.ts';
import { LANGS, type Lang } from './locales.ts';
import type { Schedule } from './place.ts';

export {
  CARD_TRANSLATED,
  EMAIL_TYPES,
  OWNER_LISTS,
  OWNER_TEXT,
  PHONE_TYPES,
  PROFILE_TRANSLATED,
  type CardEmail,
  type CardPhone,
} from './live-schema.ts';

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
  /** That profile's own domain (owner-domains.ts), if it has one: the card lives there when it takes its cards. */
  profileDomain: OwnerDomain | null;
};

/** A profile's own domain, if it has one (owner-domains.ts). */
export const domainOfProfile = (profile: Pick<Profile, 'slug' | 'domain' | 'domainCards'>): OwnerDomain | null =>
  profile.domain ? { host: profile.domain, page: profile.slug, cards: profile.domainCards } : null;

/** How a profile's page and what it makes (codes, pictures) write addresses: its home is its domain, if it has one. */
export const profileAddresses = (baseUrl: string, profile: Pick<Profile, 'slug' | 'domain' | 'domainCards'>) => {
  const domain = domainOfProfile(profile);
  return addressesOf(baseUrl, domain, domain !== null);
};

/** How a card's page, vCard and codes write addresses: its home is its profile's domain when that takes its cards. */
export const cardAddresses = (baseUrl: string, card: Pick<Card, 'profileDomain'>) =>
  addressesOf(baseUrl, card.profileDomain, card.profileDomain?.cards ?? false);

/** What a record's language versions need: its primary language and its translations. */
interface Translated {
  lang: Lang;
  translations: Partial<Record<Lang, object>>;
}

/** The languages a profile or card is in: its own first, then each it is translated into, in the site's order. */
export function languagesOf(record: Translated): Lang[] {
  return [record.lang, ...LANGS.filter((l) => l !== record.lang && record.translations[l] !== undefined)];
}

/**
 * One language version of a record: in `lang`, each translatable field from its translation into it, or (left
 * out there) the primary language's, which `fallback` names so that a page marks that text's language.
 */
export interface Version {
  /** The language the record was written in (what an untranslated field is in). */
  primary: Lang;
  /** Every language the record is in: its own first. */
  langs: Lang[];
  /** The fields shown in the primary language because the translation leaves them out. */
  fallback: ReadonlySet<string>;
}

/** A profile in one of its languages (`lang`), as its page in that language shows it; `original`, as written. */
export type ProfileVersion = Profile & {
  version: Version & { original: Profile };
  links: (ProfileLink & { titleFallback?: boolean; sectionFallback?: boolean })[];
};
/** A card in one of its languages; `original`, as written. */
export type CardVersion = Card & { version: Version & { original: Card } };

/** What `field` of a record says in each of its languages (its own where a translation leaves it out), by language. */
export function inEachLanguage<F extends 'name' | 'organization'>(
  record: Translated & { [K in F]: string | null } & { translations: Partial<Record<Lang, { [K in F]?: string }>> },
  field: F,
): Partial<Record<Lang, string>> {
  const out: Partial<Record<Lang, string>> = {};
  for (const lang of languagesOf(record)) {
    const value = lang === record.lang ? record[field] : (record.translations[lang]?.[field] ?? record[field]);
    if (value) out[lang] = value;
  }
  return out;
}

/** `profile` in `lang`, or undefined when it is not in that language. */
export function profileIn(profile: Profile, lang: Lang): ProfileVersion | undefined {
  const langs = languagesOf(profile);
  if (!langs.includes(lang)) return undefined;
  const translation = lang === profile.lang ? undefined : profile.translations[lang];
  const fallback = new Set<string>();
  const pick = <K extends 'name' | 'bio'>(field: K): Profile[K] => {
    const translated = translation?.[field];
    if (translation && translated === undefined) fallback.add(field);
    return translated ?? profile[field];
  };
  const titles = translation?.links;
  // The place's address, translated as the profile's other text is.
  let place = profile.place;
  if (place && translation) {
    if (translation.address !== undefined) place = { ...place, address: translation.address };
    else if (place.address !== null) fallback.add('address');
  }
  return {
    ...profile,
    lang,
    name: pick('name'),
    bio: pick('bio'),
    place,
    links: profile.links.map((link) => {
      if (!translation) return link;
      const title = titles && Object.hasOwn(titles, link.url) ? titles[link.url] : undefined;
      const translated = title === undefined ? { ...link, titleFallback: true } : { ...link, title };
      if (link.section === null) return translated;
      // A section's title, translated under its title in the profile's own language.
      const sections = translation.sections;
      const section = sections && Object.hasOwn(sections, link.section) ? sections[link.section] : undefined;
      return section === undefined ? { ...translated, sectionFallback: true } : { ...translated, section };
    }),
    version: { primary: profile.lang, langs, fallback, original: profile },
  };
}

/** `card` in `lang`, or undefined when it is not in that language. */
export function cardIn(card: Card, lang: Lang): CardVersion | undefined {
  const langs = languagesOf(card);
  if (!langs.includes(lang)) return undefined;
  const translation = lang === card.lang ? undefined : card.translations[lang];
  const fallback = new Set<string>();
  const pick = <K extends 'name' | 'jobTitle' | 'organization' | 'address'>(field: K): Card[K] => {
    const translated = translation?.[field];
    // A field the primary language leaves empty has nothing to fall back to.
    if (translation && translated === undefined && card[field] !== null) fallback.add(field);
    return translated ?? card[field];
  };
  return {
    ...card,
    lang,
    name: pick('name'),
    jobTitle: pick('jobTitle'),
    organization: pick('organization'),
    address: pick('address'),
    version: { primary: card.lang, langs, fallback, original: card },
  };
}

/** Who speaks on an owner's page: an organisation says "we", a person "I" (a card with no holder's name is the organisation's). */
export type Voice = 'person' | 'organization';
export const voiceOfProfile = (profile: Pick<Profile, 'kind'>): Voice => profile.kind;
export const voiceOfCard = (card: Pick<Card, 'name' | 'organization'>): Voice =>
  card.name === null && card.organization !== null ? 'organization' : 'person';

/** What a live page is rendered from: Astro.locals of /p/[page] and /c/[cardId]. */
export interface LiveLocals {
  profile?: ProfileVersion;
  card?: CardVersion;
  /** The card's offline contact code holds the essentials only (sidecar/vcard.ts contactCode): the page says so. */
  contactCodeShort?: boolean;
  /** The instant the page is rendered for, ISO 8601: link time windows are judged against it. */
  now?: string;
  /** The place's hours at that instant, read where the page is rendered (render-worker.ts). */
  schedule?: Schedule;
  /** The owner's stylesheet, from their theme (theme.ts), made where the page is rendered (render-worker.ts). */
  themeCss?: string;
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

/**
 * WhatsApp's click-to-chat link of a mobile number written with its country code (+966 50 000 0001 →
 * https://wa.me/966500000001); undefined for a number without one, which the link cannot place.
 */
function whatsappHref(phone: string): string | undefined {
  return phone.trim().startsWith('+') ? `https://wa.me/${phone.replace(/\D/g, '')}` : undefined;
}

/** A chat on WhatsApp for each mobile written with its country code (issue 49): the card page's and its vCard's. */
export function whatsappChats(phones: readonly CardPhone[]): { number: string; href: string }[] {
  return phones
    .filter((p) => p.type === 'cell')
    .flatMap((p) => {
      const href = whatsappHref(p.number);
      return href ? [{ number: p.number, href }] : [];
    });
}
