// Writing PostgreSQL (the primary): the same versioned migrations and the same import as SQLite's, the import
// validated completely and written in one transaction. Used by the CLI, the tests and the bench; never the server.
import pg from 'pg';
import { validateImport } from '../import-format.ts';
import { countsOf, importPlan, type ImportCounts } from '../import-writer.ts';
import { MIGRATIONS, SCHEMA_VERSION } from '../migrations.ts';

export type PgImportOutcome = { ok: true; counts: ImportCounts } | { ok: false; errors: string[] };

/** Applies every migration newer than the database's, each in its own transaction, under an advisory lock. */
export async function migratePg(client: pg.ClientBase, upTo = SCHEMA_VERSION): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock(724301)');
  try {
    await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    const current = Number((await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_version')).rows[0]?.v ?? 0);
    if (current > SCHEMA_VERSION) throw new Error(`the database is at schema version ${current}, newer than this code knows (${SCHEMA_VERSION})`);
    const applied: number[] = [];
    for (const m of MIGRATIONS.filter((m) => m.version > current && m.version <= upTo)) {
      await client.query('BEGIN');
      try {
        await client.query(m.postgres);
        await client.query('INSERT INTO schema_version (version) VALUES ($1)', [m.version]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
      applied.push(m.version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock(724301)');
  }
}

/** Validates `json` against the format, itself and what the database holds, then writes it in one transaction. */
export async function importPg(client: pg.ClientBase, json: unknown, keepChanges: number): Promise<PgImportOutcome> {
  // The slugs the file refers to, looked up once (validation itself is synchronous).
  const referenced = collectReferencedSlugs(json);
  const known = new Set(
    referenced.length ? (await client.query<{ slug: string }>('SELECT slug FROM profiles WHERE slug = ANY($1)', [referenced])).rows.map((r) => r.slug) : [],
  );
  const { data, errors } = validateImport(json, (slug) => known.has(slug));
  if (!data) return { ok: false, errors };
  const plan = importPlan(data);
  await client.query('BEGIN');
  try {
    const ids = new Map<string, string>();
    for (const p of plan.profiles) {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO profiles (slug, name, bio, lang, kind, avatar_url, plan, published, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (slug) DO UPDATE SET name = excluded.name, bio = excluded.bio, lang = excluded.lang, kind = excluded.kind,
           avatar_url = excluded.avatar_url, plan = excluded.plan, published = excluded.published, updated_at = excluded.updated_at
         RETURNING id`,
        [p.slug, p.name, p.bio, p.lang, p.kind, p.avatarUrl, p.plan, p.published, p.updatedAt],
      );
      const id = rows[0]!.id;
      ids.set(p.slug, id);
      await client.query('DELETE FROM links WHERE profile_id = $1', [id]);
      await client.query('DELETE FROM socials WHERE profile_id = $1', [id]);
    }
    for (const l of plan.links) {
      await client.query(
        'INSERT INTO links (profile_id, position, title, url, enabled, pinned, starts_at, ends_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [ids.get(l.slug), l.position, l.title, l.url, l.enabled, l.pinned, l.startsAt, l.endsAt],
      );
    }
    for (const s of plan.socials) {
      await client.query('INSERT INTO socials (profile_id, position, network, url) VALUES ($1, $2, $3, $4)', [ids.get(s.slug), s.position, s.network, s.url]);
    }
    const idOf = async (slug: string) => ids.get(slug) ?? (await client.query<{ id: string }>('SELECT id FROM profiles WHERE slug = $1', [slug])).rows[0]?.id ?? null;
    for (const c of plan.cards) {
      await client.query(
        `INSERT INTO cards (card_id, mode, redirect_url, lang, name, job_title, organization, phones, emails, website, address, photo_url, profile_id, active, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
         ON CONFLICT (card_id) DO UPDATE SET mode = excluded.mode, redirect_url = excluded.redirect_url, lang = excluded.lang, name = excluded.name,
           job_title = excluded.job_title, organization = excluded.organization, phones = excluded.phones, emails = excluded.emails,
           website = excluded.website, address = excluded.address, photo_url = excluded.photo_url, profile_id = excluded.profile_id,
           active = excluded.active, updated_at = excluded.updated_at`,
        [c.cardId, c.mode, c.redirectUrl, c.lang, c.name, c.jobTitle, c.organization, c.phones, c.emails, c.website, c.address, c.photoUrl, c.profile ? await idOf(c.profile) : null, c.active, c.updatedAt],
      );
    }
    for (const a of plan.aliases) {
      await client.query('INSERT INTO aliases (alias, profile_id) VALUES ($1, $2) ON CONFLICT (alias) DO UPDATE SET profile_id = excluded.profile_id', [a.alias, await idOf(a.slug)]);
    }
    await client.query('DELETE FROM changes WHERE seq <= (SELECT max(seq) FROM changes) - $1', [keepChanges]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
  return { ok: true, counts: countsOf(plan) };
}

function collectReferencedSlugs(json: unknown): string[] {
  const data = json as { cards?: { profile?: unknown }[]; aliases?: { page?: unknown }[] } | null;
  const slugs = [...(Array.isArray(data?.cards) ? data.cards.map((c) => c?.profile) : []), ...(Array.isArray(data?.aliases) ? data.aliases.map((a) => a?.page) : [])];
  return [...new Set(slugs.filter((s): s is string => typeof s === 'string'))];
}
