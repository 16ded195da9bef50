// Writes a validated import in one transaction: upserts by slug, card id and alias; a profile's links and socials
// are replaced by the file's. Used by the CLI only: the server never writes.
import type Database from 'better-sqlite3';
import type { ImportData } from './import-format.ts';

export interface ImportCounts {
  profiles: number;
  cards: number;
  aliases: number;
}

export function applyImport(db: Database.Database, data: ImportData, now = new Date()): ImportCounts {
  const stamp = now.toISOString();
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
  const insertSocial = db.prepare('INSERT INTO socials (profile_id, position, network, url) VALUES (?, ?, ?, ?)');
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
    for (const p of data.profiles) {
      const { id } = upsertProfile.get({
        slug: p.slug,
        name: p.name,
        bio: p.bio,
        lang: p.lang,
        kind: p.kind,
        avatarUrl: p.avatarUrl ?? null,
        plan: p.plan,
        published: p.published ? 1 : 0,
        updatedAt: stamp,
      }) as { id: number };
      clearLinks.run(id);
      clearSocials.run(id);
      p.links.forEach((l, position) =>
        insertLink.run({
          profileId: id,
          position,
          title: l.title,
          url: l.url,
          enabled: l.enabled ? 1 : 0,
          pinned: l.pinned ? 1 : 0,
          startsAt: l.startsAt ? new Date(l.startsAt).toISOString() : null,
          endsAt: l.endsAt ? new Date(l.endsAt).toISOString() : null,
        }),
      );
      p.socials.forEach((s, position) => insertSocial.run(id, position, s.network, s.url));
    }
    for (const c of data.cards) {
      const page = c.mode === 'page' ? c : undefined;
      upsertCard.run({
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
        profileId: page?.profile ? (profileId.get(page.profile) as number) : null,
        active: c.active ? 1 : 0,
        updatedAt: stamp,
      });
    }
    for (const a of data.aliases) upsertAlias.run(a.alias, profileId.get(a.page) as number);
  })();

  return { profiles: data.profiles.length, cards: data.cards.length, aliases: data.aliases.length };
}
