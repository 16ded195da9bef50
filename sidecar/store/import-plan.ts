// What an import writes, for every backend: the plan (rows from the validated file, each made from the tables'
// declaration: every column an import field writes, src/lib/live-schema.ts storedRow) and the writes that put it in
// the database in one transaction (upserts by slug, card id and alias; a profile's links and socials replaced by the
// file's), written once with Kysely against the declared tables, so that SQLite and PostgreSQL run the same writes, by
// column name, in batches. Used by the writers only: the server never imports this.
import type { Insertable, Kysely } from 'kysely';
import { storedRow } from '../../src/lib/live-schema.ts';
import type { Result } from '../../src/lib/result.ts';
import type { Database } from './database.ts';
import { validateImport, type ImportData, type ImportRules } from './import-format.ts';

export interface ImportCounts {
  profiles: number;
  cards: number;
  aliases: number;
  domains: number;
}

type Row<T extends keyof Database> = Insertable<Database[T]>;

/** The rows an import writes, whatever the backend: profiles referenced by slug, resolved to ids when written. */
export interface ImportPlan {
  /** Their images (avatar_image) are null until taken (image-intake.ts `withImages`). */
  profiles: Row<'profiles'>[];
  links: (Omit<Row<'links'>, 'profile_id'> & { slug: string })[];
  socials: (Omit<Row<'socials'>, 'profile_id'> & { slug: string })[];
  /** `profile`: the slug of the profile a card shows (photo_image null until taken). */
  cards: (Omit<Row<'cards'>, 'profile_id'> & { profile: string | null })[];
  aliases: { alias: string; slug: string }[];
  /** Owners' domains (owner-domains.ts): each host moved to its profile, or (slug null) to none. */
  domains: { host: string; slug: string | null; cards: boolean }[];
  /** Image files to write (image-files.ts): the images taken for this file's avatars and photos. */
  images: { name: string; bytes: Uint8Array }[];
  /** What the import says beside writing: each theme colour a page will draw in another (import-format.ts). */
  notices: string[];
}

/** The rows a valid file makes, stamped `now`: what planImport hands the writers. */
function rowsOf(data: ImportData, notices: string[], now = new Date()): ImportPlan {
  const stamp = now.toISOString();
  return {
    profiles: data.profiles.map((p) => storedRow('profiles', p, { updated_at: stamp, avatar_image: null })),
    links: data.profiles.flatMap((p) =>
      p.links.map((link, position) => ({
        ...storedRow('links', link, { position, thumbnail_image: null }),
        slug: p.slug,
      })),
    ),
    socials: data.profiles.flatMap((p) =>
      p.socials.map((social, position) => ({ ...storedRow('socials', social, { position }), slug: p.slug })),
    ),
    cards: data.cards.map((c) => ({
      ...storedRow('cards', c, { updated_at: stamp, photo_image: null, logo_image: null }),
      profile: c.mode === 'page' ? (c.profile ?? null) : null,
    })),
    aliases: data.aliases.map((a) => ({ alias: a.alias, slug: a.page })),
    domains: data.domains.map((d) => ({ host: d.host, slug: d.page, cards: d.cards })),
    images: [],
    notices,
  };
}

/** What an import wrote, for the CLI's message. */
export function countsOf(plan: ImportPlan): ImportCounts {
  return {
    profiles: plan.profiles.length,
    cards: plan.cards.length,
    aliases: plan.aliases.length,
    domains: plan.domains.length,
  };
}

/**
 * Rows a statement writes at once: SQLite takes up to 32,766 parameters a statement, PostgreSQL 65,535; a batch of
 * rows of up to twenty columns stays under both, and one statement per thousand rows (where it was one a row) took a
 * 50,000-profile import on PostgreSQL from 97 s to a few (docs/benchmarks/data-tier.md).
 */
const BATCH = 1000;

function* batches<T>(rows: readonly T[], size = BATCH): Generator<T[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

/**
 * Writes `plan`, then prunes the change log to its newest `keepChanges` rows. Run inside one transaction; every write
 * names its columns (the declared tables, database.ts), and an upsert sets again every column it writes.
 */
export async function writeImport(db: Kysely<Database>, plan: ImportPlan, keepChanges: number): Promise<void> {
  // An image's name is a hash of what it was made from, so one already there is the same file.
  for (const images of batches(plan.images, 50))
    await db
      .insertInto('images')
      .values(images)
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();

  const ids = new Map<string, number | string>();
  for (const profiles of batches(plan.profiles)) {
    const written = await db
      .insertInto('profiles')
      .values(profiles)
      .onConflict((oc) => oc.column('slug').doUpdateSet((eb) => excludedAll(eb, profiles[0]!, ['slug'])))
      .returning(['id', 'slug'])
      .execute();
    for (const row of written) ids.set(row.slug, row.id);
  }
  // A profile's links and socials are the file's: the ones it had go first.
  for (const profileIds of batches([...ids.values()])) {
    await db.deleteFrom('links').where('profile_id', 'in', profileIds).execute();
    await db.deleteFrom('socials').where('profile_id', 'in', profileIds).execute();
  }
  const ofProfile = <R extends { slug: string }>(rows: R[]) =>
    rows.map(({ slug, ...row }) => ({ ...row, profile_id: ids.get(slug)! }));
  for (const links of batches(plan.links)) await db.insertInto('links').values(ofProfile(links)).execute();
  for (const socials of batches(plan.socials)) await db.insertInto('socials').values(ofProfile(socials)).execute();

  // A card or alias may name a profile that is not in this file: validation checked it is in the database.
  const elsewhere = [
    ...new Set([...plan.cards.flatMap((c) => (c.profile ? [c.profile] : [])), ...plan.aliases.map((a) => a.slug)]),
  ].filter((slug) => !ids.has(slug));
  for (const slugs of batches(elsewhere))
    for (const row of await db.selectFrom('profiles').select(['id', 'slug']).where('slug', 'in', slugs).execute())
      ids.set(row.slug, row.id);

  for (const cards of batches(plan.cards)) {
    const rows = cards.map(({ profile, ...card }) => ({
      ...card,
      profile_id: profile ? (ids.get(profile) ?? null) : null,
    }));
    await db
      .insertInto('cards')
      .values(rows)
      .onConflict((oc) => oc.column('card_id').doUpdateSet((eb) => excludedAll(eb, rows[0]!, ['card_id'])))
      .execute();
  }
  for (const aliases of batches(plan.aliases))
    await db
      .insertInto('aliases')
      .values(aliases.map((a) => ({ alias: a.alias, profile_id: ids.get(a.slug)! })))
      .onConflict((oc) => oc.column('alias').doUpdateSet((eb) => ({ profile_id: eb.ref('excluded.profile_id') })))
      .execute();

  // A host is one profile's at most (a unique index): each named host leaves whichever profile had it, then goes to
  // its own (so that a file may move a host from one profile to another), and a profile takes one host.
  for (const hosts of batches(plan.domains.map((d) => d.host)))
    await db.updateTable('profiles').set({ domain: null, domain_cards: 0 }).where('domain', 'in', hosts).execute();
  for (const { host, slug, cards } of plan.domains)
    if (slug !== null)
      await db
        .updateTable('profiles')
        .set({ domain: host, domain_cards: cards ? 1 : 0 })
        .where('slug', '=', slug)
        .execute();

  await db
    .deleteFrom('changes')
    .where('seq', '<=', (eb) =>
      eb.selectFrom('changes').select((inner) => inner(inner.fn.max('seq'), '-', keepChanges).as('oldest')),
    )
    .execute();
}

/** An upsert's update: every column `row` writes, but `keys`, set to what the insert would have written. */
function excludedAll<R extends object>(
  eb: { ref: (reference: `excluded.${string}`) => unknown },
  row: R,
  keys: readonly string[],
): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(row)
      .filter((column) => !keys.includes(column))
      .map((column) => [column, eb.ref(`excluded.${column}`)]),
  );
}

/** The slugs of profiles a file's cards, aliases and domains name: the ones validation must find in the file or the database. */
export function referencedSlugs(json: unknown): string[] {
  const data = json as {
    cards?: { profile?: unknown }[];
    aliases?: { page?: unknown }[];
    domains?: { page?: unknown }[];
  } | null;
  const slugs = [
    ...(Array.isArray(data?.cards) ? data.cards.map((c) => c?.profile) : []),
    ...(Array.isArray(data?.aliases) ? data.aliases.map((a) => a?.page) : []),
    ...(Array.isArray(data?.domains) ? data.domains.map((d) => d?.page) : []),
  ];
  return [...new Set(slugs.filter((s): s is string => typeof s === 'string'))];
}

export type ImportOutcome = Result<{ counts: ImportCounts; notices: string[] }, { errors: string[] }>;

/** Rows of the change log a writer keeps (an import prunes older ones): a sidecar further behind drops its whole cache. */
export const CHANGE_LOG_KEEP = 100_000;

/** The plan for `json`, or every reason it cannot be imported; `known`: the referenced slugs the database holds. */
export type PlanOutcome = Result<{ plan: ImportPlan }, { errors: string[] }>;

export function planImport(json: unknown, known: ReadonlySet<string>, rules: ImportRules = {}): PlanOutcome {
  const validated = validateImport(json, (slug) => known.has(slug), rules);
  return validated.ok ? { ok: true, plan: rowsOf(validated.data, validated.notices) } : validated;
}
