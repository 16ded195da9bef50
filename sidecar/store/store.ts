// The read-only store: the only module that queries the database for the server. It reopens the file when it
// is replaced or comes back, and turns every database failure into StoreUnavailableError.
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Lang } from '../../src/lib/site-config.ts';
import type { Card, Profile } from '../../src/lib/live-content.ts';

export type { Card, Profile };
import { SCHEMA_VERSION } from './migrations.ts';

export interface LivePage {
  path: string;
  lastmod: string;
}

export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

interface ProfileRow {
  id: number;
  slug: string;
  name: string;
  bio: string;
  lang: Lang;
  kind: 'person' | 'organization';
  avatar_url: string | null;
  plan: 'free' | 'paid';
  updated_at: string;
}

interface CardRow {
  card_id: string;
  mode: 'page' | 'redirect';
  redirect_url: string | null;
  lang: Lang;
  name: string | null;
  job_title: string | null;
  organization: string | null;
  phones: string;
  emails: string;
  website: string | null;
  address: string | null;
  photo_url: string | null;
  profile_slug: string | null;
  updated_at: string;
}

export interface StoreOptions {
  /** How long a query waits for a lock held by another process before the store counts as unavailable. */
  busyTimeoutMs?: number;
  /** After such a timeout, how long every query fails at once instead of waiting again. */
  lockBackoffMs?: number;
}

export class Store {
  readonly path: string;
  private readonly busyTimeoutMs: number;
  private db: Database.Database | undefined;
  private fileId = '';
  /** Bumped on every (re)open, so that cached pages from an earlier file are never served. */
  private generation = 0;
  private statements: ReturnType<typeof prepare> | undefined;
  /** After a lock timeout, fail fast until then: better-sqlite3 waits synchronously, and a wait stalls every request. */
  private lockedUntil = 0;

  constructor(path: string, options: StoreOptions = {}) {
    this.path = path;
    this.busyTimeoutMs = options.busyTimeoutMs ?? 250;
    this.lockBackoffMs = options.lockBackoffMs ?? 1000;
  }

  private readonly lockBackoffMs: number;

  /**
   * A token that changes whenever the data may have changed: another process committed (SQLite's
   * data_version), or the file was replaced. Throws StoreUnavailableError when the database cannot be read.
   */
  version(): string {
    return this.run((s) => `${this.generation}:${s.dataVersion.get() as number}`);
  }

  /** Runs a real query against the schema; throws StoreUnavailableError when that fails. */
  check(): void {
    this.run((s) => s.check.get());
  }

  profile(slug: string): Profile | undefined {
    return this.run((s) => {
      const row = s.profile.get(slug) as ProfileRow | undefined;
      if (!row) return undefined;
      const links = (s.links.all(row.id) as { title: string; url: string; pinned: number; starts_at: string | null; ends_at: string | null }[]).map((l) => ({
        title: l.title,
        url: l.url,
        pinned: l.pinned === 1,
        startsAt: l.starts_at,
        endsAt: l.ends_at,
      }));
      const socials = s.socials.all(row.id) as { network: string; url: string }[];
      return {
        slug: row.slug,
        name: row.name,
        bio: row.bio,
        lang: row.lang,
        kind: row.kind,
        avatarUrl: row.avatar_url,
        plan: row.plan,
        updatedAt: row.updated_at,
        links,
        socials,
      };
    });
  }

  card(cardId: string): Card | undefined {
    return this.run((s) => {
      const row = s.card.get(cardId) as CardRow | undefined;
      if (!row) return undefined;
      return {
        cardId: row.card_id,
        mode: row.mode,
        redirectUrl: row.redirect_url,
        lang: row.lang,
        name: row.name,
        jobTitle: row.job_title,
        organization: row.organization,
        phones: JSON.parse(row.phones) as string[],
        emails: JSON.parse(row.emails) as string[],
        website: row.website,
        address: row.address,
        photoUrl: row.photo_url,
        profileSlug: row.profile_slug,
        updatedAt: row.updated_at,
      };
    });
  }

  /** The profile an alias points to, with its owner's plan and whether it is published. */
  alias(alias: string): { slug: string; plan: 'free' | 'paid'; published: boolean } | undefined {
    return this.run((s) => {
      const row = s.alias.get(alias) as { slug: string; plan: 'free' | 'paid'; published: number } | undefined;
      return row && { slug: row.slug, plan: row.plan, published: row.published === 1 };
    });
  }

  /** Every published profile and active page-mode card, for the sitemap. */
  livePages(): LivePage[] {
    return this.run((s) => [
      ...(s.sitemapProfiles.all() as { slug: string; updated_at: string }[]).map((r) => ({ path: `/p/${r.slug}`, lastmod: r.updated_at })),
      ...(s.sitemapCards.all() as { card_id: string; updated_at: string }[]).map((r) => ({ path: `/c/${r.card_id}`, lastmod: r.updated_at })),
    ]);
  }

  close(): void {
    try {
      this.db?.close();
    } catch {
      // Closing a connection to a vanished or corrupt file can fail; it is gone either way.
    }
    this.db = undefined;
    this.statements = undefined;
  }

  private run<T>(query: (s: ReturnType<typeof prepare>) => T): T {
    if (Date.now() < this.lockedUntil) throw new StoreUnavailableError('database is locked by another process');
    const statements = this.open();
    try {
      return query(statements);
    } catch (err) {
      if (err instanceof Database.SqliteError || err instanceof TypeError || err instanceof RangeError) {
        if (err instanceof Database.SqliteError && err.code.startsWith('SQLITE_BUSY')) this.lockedUntil = Date.now() + this.lockBackoffMs;
        this.close();
        throw new StoreUnavailableError(`database query failed: ${(err as Error).message}`, { cause: err });
      }
      throw err;
    }
  }

  private open(): ReturnType<typeof prepare> {
    let fileId: string;
    try {
      const st = statSync(this.path);
      fileId = `${st.dev}:${st.ino}`;
    } catch (err) {
      this.close();
      throw new StoreUnavailableError(`database file ${this.path} is not there`, { cause: err });
    }
    // The file at the path was replaced (an atomic deploy, or a restore): read the new one.
    if (this.db && fileId !== this.fileId) this.close();
    if (this.statements) return this.statements;

    let db: Database.Database | undefined;
    try {
      db = new Database(this.path, { readonly: true, fileMustExist: true, timeout: this.busyTimeoutMs });
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version !== SCHEMA_VERSION) {
        throw new StoreUnavailableError(`database schema is at version ${version}, this server needs ${SCHEMA_VERSION}: run npm run db -- migrate`);
      }
      this.statements = prepare(db);
    } catch (err) {
      db?.close();
      if (err instanceof Database.SqliteError && err.code.startsWith('SQLITE_BUSY')) this.lockedUntil = Date.now() + this.lockBackoffMs;
      if (err instanceof StoreUnavailableError) throw err;
      throw new StoreUnavailableError(`cannot open database ${this.path}: ${(err as Error).message}`, { cause: err });
    }
    this.db = db;
    this.fileId = fileId;
    this.generation++;
    return this.statements;
  }
}

function prepare(db: Database.Database) {
  return {
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    check: db.prepare('SELECT count(*) FROM profiles WHERE id = 0').pluck(),
    profile: db.prepare('SELECT id, slug, name, bio, lang, kind, avatar_url, plan, updated_at FROM profiles WHERE slug = ? AND published = 1'),
    links: db.prepare('SELECT title, url, pinned, starts_at, ends_at FROM links WHERE profile_id = ? AND enabled = 1 ORDER BY pinned DESC, position'),
    socials: db.prepare('SELECT network, url FROM socials WHERE profile_id = ? ORDER BY position'),
    card: db.prepare(
      `SELECT c.card_id, c.mode, c.redirect_url, c.lang, c.name, c.job_title, c.organization, c.phones, c.emails, c.website,
              c.address, c.photo_url, c.updated_at, CASE WHEN p.published = 1 THEN p.slug END AS profile_slug
       FROM cards c LEFT JOIN profiles p ON p.id = c.profile_id
       WHERE c.card_id = ? AND c.active = 1`,
    ),
    alias: db.prepare('SELECT p.slug, p.plan, p.published FROM aliases a JOIN profiles p ON p.id = a.profile_id WHERE a.alias = ?'),
    sitemapProfiles: db.prepare('SELECT slug, updated_at FROM profiles WHERE published = 1 ORDER BY slug'),
    sitemapCards: db.prepare("SELECT card_id, updated_at FROM cards WHERE active = 1 AND mode = 'page' ORDER BY card_id"),
  };
}
