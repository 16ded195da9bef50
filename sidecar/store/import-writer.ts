// Writes a validated import in one transaction: upserts by slug, card id and alias; a profile's links and socials
// are replaced by the file's. Used by the CLI only: the server never writes.
import type Database from 'better-sqlite3';
import type { ImportData } from './import-format.ts';

export interface ImportCounts {
  profiles: number;
  cards: number;
  aliases: number;
}

/** The rows an import writes, whatever the backend: profiles referenced by slug, resolved to ids when written. */
export interface ImportPlan {
  profiles: { slug: string; name: string; bio: string; lang: string; kind: string; avatarUrl: string | null; plan: string; published: number; updatedAt: string }[];
  links: { slug: string; position: number; title: string; url: string; enabled: number; pinned: number; startsAt: string | null; endsAt: string | null }[];
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
    profile: string | null;
    active: number;
    updatedAt: string;
  }[];
  aliases: { alias: string; slug: string }[];
}

export function importPlan(data: ImportData, now = new Date()): ImportPlan {
  const stamp = now.toISOString();
  return {
    profiles: data.profiles.map((p) => ({
      slug: p.slug,
      name: p.name,
      bio: p.bio,
      lang: p.lang,
      kind: p.kind,
      avatarUrl: p.avatarUrl ?? null,
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
    socials: data.profiles.flatMap((p) => p.socials.map((s, position) => ({ slug: p.slug, position, network: s.network, url: s.url }))),
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
        profile: page?.profile ?? null,
        active: c.active ? 1 : 0,
        updatedAt: stamp,
      };
    }),
    aliases: data.aliases.map((a) => ({ alias: a.alias, slug: a.page })),
  };
}

/** What an import wrote, for the CLI's message. */
export function countsOf(plan: ImportPlan): ImportCounts {
  return { profiles: plan.profiles.length, cards: plan.cards.length, aliases: plan.aliases.length };
}

export function applyImport(db: Database.Database, data: ImportData, now = new Date()): ImportCounts {
  const plan = importPlan(data, now);
  const upsertProfile = db.prepare(
    `INSERT INTO profiles (slug, name, bio, lang, kind, avatar_url, plan, published, updated_at)
     VALUES (@slug, @name, @bio, @lang, @kind, @avatarUrl, @plan, @published, @updatedAt)
     ON CONFLICT (slug) DO UPDATE SET name = excluded.name, bio = excluded.bio, lang = excluded.lang, kind = excluded.kind,
       avatar_url = excluded.avatar_url, plan = excluded.plan, published = excluded.published, updated_at = excluded.updated_at
     RETURNING id`,
  );
  const clearLinks = db.prepare('DELETE FROM links WHERE profile_id = ?');
  const clearSocials = db.prepare('DELETE FROM socials WHERE profile_id = ?');
  const insertLink = db.prepare(
    `INSERT INTO links (profile_id, position, title, url, enabled, pinned, starts_at, ends_at)
     VALUES (@profileId, @position, @title, @url, @enabled, @pinned, @startsAt, @endsAt)`,
  );
  const insertSocial = db.prepare('INSERT INTO socials (profile_id, position, network, url) VALUES (@profileId, @position, @network, @url)');
  const profileId = db.prepare('SELECT id FROM profiles WHERE slug = ?').pluck();
  const upsertCard = db.prepare(
    `INSERT INTO cards (card_id, mode, redirect_url, lang, name, job_title, organization, phones, emails, website, address, photo_url, profile_id, active, updated_at)
     VALUES (@cardId, @mode, @redirectUrl, @lang, @name, @jobTitle, @organization, @phones, @emails, @website, @address, @photoUrl, @profileId, @active, @updatedAt)
     ON CONFLICT (card_id) DO UPDATE SET mode = excluded.mode, redirect_url = excluded.redirect_url, lang = excluded.lang, name = excluded.name,
       job_title = excluded.job_title, organization = excluded.organization, phones = excluded.phones, emails = excluded.emails,
       website = excluded.website, address = excluded.address, photo_url = excluded.photo_url, profile_id = excluded.profile_id,
       active = excluded.active, updated_at = excluded.updated_at`,
  );
  const upsertAlias = db.prepare(
    'INSERT INTO aliases (alias, profile_id) VALUES (?, ?) ON CONFLICT (alias) DO UPDATE SET profile_id = excluded.profile_id',
  );

  db.transaction(() => {
    const ids = new Map<string, number>();
    for (const p of plan.profiles) {
      const { id } = upsertProfile.get(p) as { id: number };
      ids.set(p.slug, id);
      clearLinks.run(id);
      clearSocials.run(id);
    }
    for (const { slug, ...l } of plan.links) insertLink.run({ ...l, profileId: ids.get(slug) });
    for (const { slug, ...s } of plan.socials) insertSocial.run({ ...s, profileId: ids.get(slug) });
    const idOf = (slug: string) => ids.get(slug) ?? (profileId.get(slug) as number);
    for (const { profile, ...c } of plan.cards) upsertCard.run({ ...c, profileId: profile ? idOf(profile) : null });
    for (const a of plan.aliases) upsertAlias.run(a.alias, idOf(a.slug));
  })();

  return countsOf(plan);
}
