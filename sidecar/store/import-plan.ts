// What an import writes, for every backend: the plan (rows from the validated file) and the steps that write it in
// one transaction (upserts by slug, card id and alias; a profile's links and socials replaced by the file's). The
// steps are a generator of statements from sql.ts, so that SQLite's synchronous driver and PostgreSQL's client run
// the very same sequence. Used by the writers only: the server never imports this.
import { validateImport, type ImportData, type ImportRules } from './import-format.ts';
import { WRITES } from './sql.ts';
import type { Result } from '../../src/lib/result.ts';

export interface ImportCounts {
  profiles: number;
  cards: number;
  aliases: number;
}

/** The rows an import writes, whatever the backend: profiles referenced by slug, resolved to ids when written. */
export interface ImportPlan {
  profiles: {
    slug: string;
    name: string;
    bio: string;
    lang: string;
    kind: string;
    /** The reference the owner gave (an address, or a file beside the import file), kept as given. */
    avatarUrl: string | null;
    /** The image taken from it (image-intake.ts `withImages`); null until then. */
    avatarImage: string | null;
    plan: string;
    published: number;
    updatedAt: string;
  }[];
  links: {
    slug: string;
    position: number;
    title: string;
    url: string;
    enabled: number;
    pinned: number;
    startsAt: string | null;
    endsAt: string | null;
  }[];
  socials: { slug: string; position: number; network: string; url: string }[];
  cards: {
    cardId: string;
    mode: string;
    redirectUrl: string | null;
    lang: string;
    name: string | null;
    jobTitle: string | null;
    organization: string | null;
    phones: string;
    emails: string;
    website: string | null;
    address: string | null;
    photoUrl: string | null;
    photoImage: string | null;
    profile: string | null;
    active: number;
    updatedAt: string;
  }[];
  aliases: { alias: string; slug: string }[];
  /** Image files to write (image-files.ts): the images taken for this file's avatars and photos. */
  images: { name: string; bytes: Uint8Array }[];
}

/** The rows a valid file makes, stamped `now`: what planImport hands the writers. */
function rowsOf(data: ImportData, now = new Date()): ImportPlan {
  const stamp = now.toISOString();
  return {
    profiles: data.profiles.map((p) => ({
      slug: p.slug,
      name: p.name,
      bio: p.bio,
      lang: p.lang,
      kind: p.kind,
      avatarUrl: p.avatarUrl ?? null,
      avatarImage: null,
      plan: p.plan,
      published: p.published ? 1 : 0,
      updatedAt: stamp,
    })),
    links: data.profiles.flatMap((p) =>
      p.links.map((l, position) => ({
        slug: p.slug,
        position,
        title: l.title,
        url: l.url,
        enabled: l.enabled ? 1 : 0,
        pinned: l.pinned ? 1 : 0,
        startsAt: l.startsAt ? new Date(l.startsAt).toISOString() : null,
        endsAt: l.endsAt ? new Date(l.endsAt).toISOString() : null,
      })),
    ),
    socials: data.profiles.flatMap((p) =>
      p.socials.map((s, position) => ({ slug: p.slug, position, network: s.network, url: s.url })),
    ),
    cards: data.cards.map((c) => {
      const page = c.mode === 'page' ? c : undefined;
      return {
        cardId: c.cardId,
        mode: c.mode,
        redirectUrl: c.mode === 'redirect' ? c.redirectUrl : null,
        lang: c.lang,
        name: page?.name ?? null,
        jobTitle: page?.title ?? null,
        organization: page?.organization ?? null,
        phones: JSON.stringify(page?.phones ?? []),
        emails: JSON.stringify(page?.emails ?? []),
        website: page?.website ?? null,
        address: page?.address ?? null,
        photoUrl: page?.photoUrl ?? null,
        photoImage: null,
        profile: page?.profile ?? null,
        active: c.active ? 1 : 0,
        updatedAt: stamp,
      };
    }),
    aliases: data.aliases.map((a) => ({ alias: a.alias, slug: a.page })),
    images: [],
  };
}

/** What an import wrote, for the CLI's message. */
export function countsOf(plan: ImportPlan): ImportCounts {
  return { profiles: plan.profiles.length, cards: plan.cards.length, aliases: plan.aliases.length };
}

/** One statement of an import: `get` when its first row is wanted back (an id). */
export interface ImportStep {
  sql: string;
  params: unknown[];
  get?: boolean;
}

/**
 * The statements that write `plan`, in order, then prune the change log to its newest `keepChanges` rows. The driver
 * runs each and passes back the row a `get` step asked for. Run inside one transaction.
 */
export function* importSteps(
  plan: ImportPlan,
  keepChanges: number,
): Generator<ImportStep, void, { id: number | string } | undefined> {
  const ids = new Map<string, number | string>();
  for (const image of plan.images) yield { sql: WRITES.insertImage, params: [image.name, image.bytes] };
  for (const p of plan.profiles) {
    const row = yield {
      sql: WRITES.upsertProfile,
      params: [p.slug, p.name, p.bio, p.lang, p.kind, p.avatarUrl, p.avatarImage, p.plan, p.published, p.updatedAt],
      get: true,
    };
    if (!row) throw new Error(`the upsert of profile ${p.slug} returned no id`);
    ids.set(p.slug, row.id);
    yield { sql: WRITES.clearLinks, params: [row.id] };
    yield { sql: WRITES.clearSocials, params: [row.id] };
  }
  for (const l of plan.links)
    yield {
      sql: WRITES.insertLink,
      params: [ids.get(l.slug), l.position, l.title, l.url, l.enabled, l.pinned, l.startsAt, l.endsAt],
    };
  for (const s of plan.socials)
    yield { sql: WRITES.insertSocial, params: [ids.get(s.slug), s.position, s.network, s.url] };
  // A card or alias may name a profile that is not in this file: validation checked it is in the database.
  function* idOf(slug: string): Generator<ImportStep, number | string | null, { id: number | string } | undefined> {
    const known = ids.get(slug);
    if (known !== undefined) return known;
    const row = yield { sql: WRITES.profileId, params: [slug], get: true };
    return row?.id ?? null;
  }
  for (const c of plan.cards) {
    const profileId = c.profile ? yield* idOf(c.profile) : null;
    yield {
      sql: WRITES.upsertCard,
      params: [
        c.cardId,
        c.mode,
        c.redirectUrl,
        c.lang,
        c.name,
        c.jobTitle,
        c.organization,
        c.phones,
        c.emails,
        c.website,
        c.address,
        c.photoUrl,
        c.photoImage,
        profileId,
        c.active,
        c.updatedAt,
      ],
    };
  }
  for (const a of plan.aliases) yield { sql: WRITES.upsertAlias, params: [a.alias, yield* idOf(a.slug)] };
  yield { sql: WRITES.pruneChanges, params: [keepChanges] };
}

/** The slugs of profiles a file's cards and aliases name: the ones validation must find in the file or the database. */
export function referencedSlugs(json: unknown): string[] {
  const data = json as { cards?: { profile?: unknown }[]; aliases?: { page?: unknown }[] } | null;
  const slugs = [
    ...(Array.isArray(data?.cards) ? data.cards.map((c) => c?.profile) : []),
    ...(Array.isArray(data?.aliases) ? data.aliases.map((a) => a?.page) : []),
  ];
  return [...new Set(slugs.filter((s): s is string => typeof s === 'string'))];
}

export type ImportOutcome = Result<{ counts: ImportCounts }, { errors: string[] }>;

/** Rows of the change log a writer keeps (an import prunes older ones): a sidecar further behind drops its whole cache. */
export const CHANGE_LOG_KEEP = 100_000;

/** The plan for `json`, or every reason it cannot be imported; `known`: the referenced slugs the database holds. */
export type PlanOutcome = Result<{ plan: ImportPlan }, { errors: string[] }>;

export function planImport(json: unknown, known: ReadonlySet<string>, rules: ImportRules = {}): PlanOutcome {
  const validated = validateImport(json, (slug) => known.has(slug), rules);
  return validated.ok ? { ok: true, plan: rowsOf(validated.data) } : validated;
}
