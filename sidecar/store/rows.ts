// The database's rows and what pages render of them, for every backend, derived from the tables' declaration
// (src/lib/live-schema.ts): each column a page sees is judged there on the way out, whoever wrote it (owner text
// cleaned of what disguises it and cut at the import's bound, dates checked, lists bounded); a row that does not hold
// what its column promises is a CorruptRowError (another writer's mistake: logged as an error, answered 500), never an
// unavailable database.
import type { Card, Profile } from '../../src/lib/live-content.ts';
import { hostProblem, type OwnerDomain } from '../../src/lib/owner-domains.ts';
import { CorruptRowError, shownRow } from '../../src/lib/live-schema.ts';
import { storedInstant } from '../../src/lib/owner-input.ts';
import { isLang, LANGS, type Lang } from '../../src/lib/locales.ts';
import type { Reads, RowOf } from './reads.ts';
import type { AliasTarget, LivePage, LivePageKind } from './store.ts';

type ProfileRow = RowOf<Reads['profile']>;
type LinkRow = RowOf<Reads['links']>;
type SocialRow = RowOf<Reads['socials']>;
type CardRow = RowOf<Reads['card']>;
type AliasRow = RowOf<Reads['alias']>;
type LivePageRow = RowOf<Reads['liveFrom']['profile']>;

export function profileFromRows(row: ProfileRow, links: LinkRow[], socials: SocialRow[]): Profile {
  const of = `profile ${row.slug}`;
  return {
    ...shownRow('profiles', row, of),
    links: links.map((link) => shownRow('links', link, of)),
    socials: socials.map((social) => shownRow('socials', social, of)),
  };
}

const PROFILE_KINDS = ['person', 'organization'] as const;

export function cardFromRow(row: CardRow): Card {
  const of = `card ${row.card_id}`;
  const kind = row.profile_kind;
  if (kind !== null && !(PROFILE_KINDS as readonly string[]).includes(kind))
    throw new CorruptRowError(`profiles.kind of the profile of ${of} holds ${JSON.stringify(kind)}`);
  return {
    ...shownRow('cards', row, of),
    profileSlug: row.profile_slug,
    profileKind: row.profile_slug === null ? null : (kind as (typeof PROFILE_KINDS)[number] | null),
    profileDomain:
      row.profile_slug === null || row.profile_domain === null
        ? null
        : ownerDomainOf(
            { slug: row.profile_slug, domain: row.profile_domain, domain_cards: row.profile_domain_cards },
            `the profile of ${of}`,
          ),
  };
}

/** A profile's own domain from its row, judged as its column is (a value that is no host name is corrupt). */
export function ownerDomainOf(
  row: { slug: string; domain: string | null; domain_cards: number | boolean | null },
  of = `profile ${row.slug}`,
): OwnerDomain | null {
  if (row.domain === null) return null;
  const problem = hostProblem(row.domain);
  if (problem)
    throw new CorruptRowError(
      `profiles.domain of ${of} is not a host name (${problem}): ${JSON.stringify(String(row.domain).slice(0, 40))}`,
    );
  return { host: row.domain, page: row.slug, cards: row.domain_cards === 1 || row.domain_cards === true };
}

/** An alias's row: the profile it leads to, its owner's plan, and whether the profile is published. */
export function aliasTargetOf(row: AliasRow): AliasTarget {
  return {
    slug: row.slug,
    plan: row.plan === 'paid' ? 'paid' : 'free',
    published: row.published === 1 || row.published === true,
  };
}

/**
 * The sitemap's live part: a published profile's slug or an active page-mode card's id, its languages (its own first)
 * and when it changed.
 */
export function livePagesOf(kind: LivePageKind, rows: LivePageRow[]): LivePage[] {
  const table = kind === 'profile' ? 'profiles' : 'cards';
  // The columns' own judgements (a row whose date or language is none is corrupt); the row is named only then.
  return rows.map((r) => {
    const lastmod = storedInstant(r.updated_at);
    if (lastmod === undefined)
      throw new CorruptRowError(
        `${table}.updated_at of ${kind} ${r.key} is not a date: ${JSON.stringify(String(r.updated_at).slice(0, 40))}`,
      );
    if (!isLang(r.lang)) throw new CorruptRowError(`${table}.lang of ${kind} ${r.key} holds ${JSON.stringify(r.lang)}`);
    const row = r as Record<`in_${Lang}`, unknown>;
    const langs = [r.lang, ...LANGS.filter((l) => l !== r.lang && (row[`in_${l}`] === 1 || row[`in_${l}`] === true))];
    return { key: r.key, langs, lastmod };
  });
}
