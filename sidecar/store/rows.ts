// The database's rows and their mapping to what pages render, for every backend: a row that does not hold what the
// schema promises is a CorruptRowError (another writer's mistake: logged as an error, answered 500), never an
// unavailable database. Every string an owner wrote is judged again here, whoever wrote it (issue 46): the invisible
// characters an import refuses are removed and a string longer than an import allows is cut there
// (owner-input.ts servedText); a date that is no real instant is a CorruptRowError.
import {
  EMAIL_TYPES,
  OWNER_LISTS,
  OWNER_TEXT,
  PHONE_TYPES,
  type Card,
  type CardEmail,
  type CardPhone,
  type Profile,
} from '../../src/lib/live-content.ts';
import { IMAGE_ID_PATTERN } from '../../src/lib/image-files.ts';
import { servedText, storedInstant } from '../../src/lib/owner-input.ts';
import type { Lang } from '../../src/lib/surface.ts';
import { pathOf } from '../../src/lib/surface.ts';

/** A row holds what the schema does not allow (another writer's mistake): a defect to log and answer with a 500. */
class CorruptRowError extends Error {
  override name = 'CorruptRowError';
}

export interface ProfileRow {
  id: number;
  slug: string;
  name: string;
  bio: string;
  lang: Lang;
  kind: 'person' | 'organization';
  /** The image shown (image-files.ts), not the address it was taken from. */
  avatar_image: string | null;
  plan: 'free' | 'paid';
  updated_at: string;
}

export interface LinkRow {
  title: string;
  url: string;
  pinned: number | boolean;
  starts_at: string | null;
  ends_at: string | null;
}

export interface SocialRow {
  network: string;
  url: string;
}

export interface CardRow {
  card_id: string;
  mode: 'page' | 'redirect';
  redirect_url: string | null;
  lang: Lang;
  name: string | null;
  job_title: string | null;
  organization: string | null;
  /** A JSON list of strings. */
  phones: string;
  emails: string;
  website: string | null;
  address: string | null;
  photo_image: string | null;
  profile_slug: string | null;
  profile_kind: 'person' | 'organization' | null;
  updated_at: string;
}

export function profileFromRows(row: ProfileRow, links: LinkRow[], socials: SocialRow[]): Profile {
  const what = `profile ${row.slug}`;
  return {
    slug: row.slug,
    name: servedText(row.name, 'line', OWNER_TEXT.profileName),
    bio: servedText(row.bio, 'text', OWNER_TEXT.bio),
    lang: row.lang,
    kind: row.kind,
    avatar: imageIdOf(row.avatar_image, `profiles.avatar_image of ${what}`),
    plan: row.plan,
    updatedAt: instantOf(row.updated_at, `profiles.updated_at of ${what}`),
    links: links.map((l) => ({
      title: servedText(l.title, 'line', OWNER_TEXT.linkTitle),
      url: l.url,
      pinned: l.pinned === 1 || l.pinned === true,
      startsAt: l.starts_at === null ? null : instantOf(l.starts_at, `links.starts_at of ${what}`),
      endsAt: l.ends_at === null ? null : instantOf(l.ends_at, `links.ends_at of ${what}`),
    })),
    socials: socials.map((s) => ({ network: servedText(s.network, 'line', OWNER_TEXT.network), url: s.url })),
  };
}

export function cardFromRow(row: CardRow): Card {
  const what = `card ${row.card_id}`;
  const line = (value: string | null, max: number) => (value === null ? null : servedText(value, 'line', max));
  return {
    cardId: row.card_id,
    mode: row.mode,
    redirectUrl: row.redirect_url,
    lang: row.lang,
    name: line(row.name, OWNER_TEXT.cardName),
    jobTitle: line(row.job_title, OWNER_TEXT.jobTitle),
    organization: line(row.organization, OWNER_TEXT.organization),
    phones: jsonList(row.phones, `cards.phones of ${what}`, OWNER_LISTS.phones).map((entry) => {
      const phone = typed(entry, 'number', PHONE_TYPES, `cards.phones of ${what}`) as unknown as CardPhone;
      return { ...phone, number: servedText(phone.number, 'line', OWNER_TEXT.phone) };
    }),
    emails: jsonList(row.emails, `cards.emails of ${what}`, OWNER_LISTS.emails).map((entry) => {
      const email = typed(entry, 'address', EMAIL_TYPES, `cards.emails of ${what}`) as unknown as CardEmail;
      return { ...email, address: servedText(email.address, 'line', OWNER_TEXT.email) };
    }),
    website: row.website,
    address: row.address === null ? null : servedText(row.address, 'text', OWNER_TEXT.address),
    photo: imageIdOf(row.photo_image, `cards.photo_image of ${what}`),
    profileSlug: row.profile_slug,
    profileKind: row.profile_slug === null ? null : row.profile_kind,
    updatedAt: instantOf(row.updated_at, `cards.updated_at of ${what}`),
  };
}

/** A date column: the instant it names, in one form (owner-input.ts storedInstant), or a CorruptRowError. */
function instantOf(value: string, what: string): string {
  const instant = storedInstant(String(value));
  if (instant === undefined)
    throw new CorruptRowError(`${what} is not a date: ${JSON.stringify(String(value).slice(0, 40))}`);
  return instant;
}

/** An image column: an identifier the image route serves, or none. */
function imageIdOf(value: string | null, what: string): string | null {
  if (value === null) return null;
  if (!IMAGE_ID_PATTERN.test(value)) throw new CorruptRowError(`${what} is not an image identifier`);
  return value;
}

/** A JSON list column, no longer than an import allows (`max`: a longer one another writer made is cut there). */
function jsonList(json: string, what: string, max: number): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new CorruptRowError(`${what} is not JSON: ${JSON.stringify(String(json).slice(0, 80))}`, { cause: err });
  }
  if (!Array.isArray(value)) throw new CorruptRowError(`${what} is not a JSON list`);
  return value.slice(0, max);
}

/** `{ number, type }` (or a plain string, as written before types existed: the first type is assumed). */
function typed(
  entry: unknown,
  key: 'number' | 'address',
  types: readonly string[],
  what: string,
): Record<string, string> {
  if (typeof entry === 'string') return { [key]: entry, type: types[0]! };
  const record = entry as Record<string, unknown> | null;
  if (record && typeof record[key] === 'string' && types.includes(record.type as string))
    return { [key]: record[key], type: record.type as string };
  throw new CorruptRowError(`${what} holds an entry that is neither a string nor { ${key}, type }`);
}

/** An alias's row: the profile it leads to, its owner's plan, and whether the profile is published. */
export interface AliasRow {
  slug: string;
  plan: 'free' | 'paid';
  published: number;
}

export function aliasTargetOf(row: AliasRow): { slug: string; plan: 'free' | 'paid'; published: boolean } {
  return { slug: row.slug, plan: row.plan, published: row.published === 1 };
}

/** A row of the sitemap's live part: a published profile's slug or an active page-mode card's id, and when it changed. */
export interface LivePageRow {
  key: string;
  updated_at: string;
}

export function livePagesOf(
  kind: 'profile' | 'card',
  rows: LivePageRow[],
): { key: string; path: string; lastmod: string }[] {
  const path =
    kind === 'profile'
      ? (page: string) => pathOf('getProfilePage', { page })
      : (cardId: string) => pathOf('getDigitalCard', { cardId });
  return rows.map((r) => ({
    key: r.key,
    path: path(r.key),
    lastmod: instantOf(r.updated_at, `${kind === 'profile' ? 'profiles' : 'cards'}.updated_at of ${kind} ${r.key}`),
  }));
}
