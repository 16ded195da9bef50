// The SQL both backends run on the data, written once (a backend's own questions to its server, such as PostgreSQL's
// standby probe and the writer's lock, stay in the backend): `?` placeholders, which PostgreSQL's statements get numbered ($1, $2…)
// by `numbered`. The schema keeps the dialects alike (0/1 flags, ISO 8601 text, the same names), so a query needs no
// variant; what does differ (how SQLite tells a commit, how a key is generated) stays in the backend or the
// migration. Adding a column: the migration (migrations.ts), the query here, the row type and mapping (rows.ts), and for
// an imported field the plan's parameters (import-plan.ts). The Store contract suite runs every query on both.
import { OWNER_LISTS } from '../../src/lib/live-content.ts';
import type { LivePageKind } from './store.ts';

/** The sitemap's live part by kind: its key, and the rows it lists (a WHERE clause the key filter extends). */
const LIVE: Record<LivePageKind, { key: string; from: string }> = {
  profile: { key: 'slug', from: 'profiles WHERE published = 1' },
  card: { key: 'card_id', from: "cards WHERE active = 1 AND mode = 'page'" },
};

/** What the server reads. */
export const READS = {
  /** A real query against the schema, for health. */
  check: 'SELECT count(*) AS n FROM profiles WHERE id = 0',
  profile:
    'SELECT id, slug, name, bio, lang, kind, avatar_image, plan, updated_at FROM profiles WHERE slug = ? AND published = 1',
  // No more than the import allows, whoever wrote them (OWNER_LISTS): a page costs at most what the largest valid one does.
  links: `SELECT title, url, pinned, starts_at, ends_at FROM links WHERE profile_id = ? AND enabled = 1 ORDER BY pinned DESC, position LIMIT ${OWNER_LISTS.links}`,
  socials: `SELECT network, url FROM socials WHERE profile_id = ? ORDER BY position LIMIT ${OWNER_LISTS.socials}`,
  card: `SELECT c.card_id, c.mode, c.redirect_url, c.lang, c.name, c.job_title, c.organization, c.phones, c.emails, c.website,
              c.address, c.photo_image, c.updated_at, CASE WHEN p.published = 1 THEN p.slug END AS profile_slug,
              CASE WHEN p.published = 1 THEN p.kind END AS profile_kind
       FROM cards c LEFT JOIN profiles p ON p.id = c.profile_id
       WHERE c.card_id = ? AND c.active = 1`,
  /** An image's file (image-files.ts), by name. */
  image: 'SELECT bytes FROM images WHERE name = ?',
  alias: 'SELECT p.slug, p.plan, p.published FROM aliases a JOIN profiles p ON p.id = a.profile_id WHERE a.alias = ?',
  changes: 'SELECT kind, key FROM changes WHERE seq > ? ORDER BY seq LIMIT ?',
  changeBounds: 'SELECT coalesce(min(seq), 0) AS first, coalesce(max(seq), 0) AS last FROM changes',
  identity: 'SELECT id FROM store_identity',
  // Each reads at most a slice of rows (its OFFSET or LIMIT): the sitemap walks a million keys in many short steps.
  liveKeyAfter: (kind: LivePageKind) =>
    `SELECT ${LIVE[kind].key} AS key FROM ${LIVE[kind].from} AND ${LIVE[kind].key} > ? ORDER BY ${LIVE[kind].key} LIMIT 1 OFFSET ?`,
  liveCountAfter: (kind: LivePageKind) =>
    `SELECT count(*) AS n FROM (SELECT 1 FROM ${LIVE[kind].from} AND ${LIVE[kind].key} > ? ORDER BY ${LIVE[kind].key} LIMIT ?) t`,
  liveFrom: (kind: LivePageKind) =>
    `SELECT ${LIVE[kind].key} AS key, updated_at FROM ${LIVE[kind].from} AND ${LIVE[kind].key} >= ? ORDER BY ${LIVE[kind].key} LIMIT ?`,
} as const;

/** What an import writes (import-plan.ts gives each statement's parameters, in order). */
export const WRITES = {
  upsertProfile: `INSERT INTO profiles (slug, name, bio, lang, kind, avatar_url, avatar_image, plan, published, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (slug) DO UPDATE SET name = excluded.name, bio = excluded.bio, lang = excluded.lang, kind = excluded.kind,
       avatar_url = excluded.avatar_url, avatar_image = excluded.avatar_image, plan = excluded.plan, published = excluded.published, updated_at = excluded.updated_at
     RETURNING id`,
  clearLinks: 'DELETE FROM links WHERE profile_id = ?',
  clearSocials: 'DELETE FROM socials WHERE profile_id = ?',
  insertLink:
    'INSERT INTO links (profile_id, position, title, url, enabled, pinned, starts_at, ends_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  insertSocial: 'INSERT INTO socials (profile_id, position, network, url) VALUES (?, ?, ?, ?)',
  profileId: 'SELECT id FROM profiles WHERE slug = ?',
  upsertCard: `INSERT INTO cards (card_id, mode, redirect_url, lang, name, job_title, organization, phones, emails, website, address, photo_url, photo_image, profile_id, active, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (card_id) DO UPDATE SET mode = excluded.mode, redirect_url = excluded.redirect_url, lang = excluded.lang, name = excluded.name,
       job_title = excluded.job_title, organization = excluded.organization, phones = excluded.phones, emails = excluded.emails,
       website = excluded.website, address = excluded.address, photo_url = excluded.photo_url, photo_image = excluded.photo_image, profile_id = excluded.profile_id,
       active = excluded.active, updated_at = excluded.updated_at`,
  upsertAlias:
    'INSERT INTO aliases (alias, profile_id) VALUES (?, ?) ON CONFLICT (alias) DO UPDATE SET profile_id = excluded.profile_id',
  /** An image's file: its name is a hash of what it was made from, so one already there is the same file. */
  insertImage: 'INSERT INTO images (name, bytes) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
  /** The writer side keeps the newest `keep` rows of the change log. */
  pruneChanges: 'DELETE FROM changes WHERE seq <= (SELECT max(seq) FROM changes) - ?',
} as const;

/** A statement with PostgreSQL's numbered placeholders. The shared SQL holds no `?` but its placeholders. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
