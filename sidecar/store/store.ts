// The read-only store: the only module that queries the database for the server. It reopens the file when it
// is replaced or comes back, and turns every database failure into StoreUnavailableError.
import { accessSync, constants, statSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Lang } from '../../src/lib/site-config.ts';
import type { Card, Profile } from '../../src/lib/live-content.ts';
import { paths } from '../../src/lib/urls.ts';

export type { Card, Profile };
import { SCHEMA_VERSION } from './migrations.ts';

export interface LivePage {
  path: string;
  lastmod: string;
}

/** How long a version read from SQLite is trusted while the file's stat is unchanged. */
const VERSION_RECHECK_MS = 1000;

/** The database cannot be read now (missing, locked, replaced by garbage, unreadable): a 503, and it may recover. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/** A row holds what the schema does not allow (another writer's mistake): a defect to log and answer with a 500. */
export class CorruptRowError extends Error {
  override name = 'CorruptRowError';
}

function stringList(json: string, what: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new CorruptRowError(`${what} is not JSON: ${JSON.stringify(json.slice(0, 80))}`, { cause: err });
  }
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new CorruptRowError(`${what} is not a JSON list of strings`);
  return value;
}

interface LinkRow {
  title: string;
  url: string;
  pinned: number;
  starts_at: string | null;
  ends_at: string | null;
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
  /** The file's identity, size and times at the last stat, and the version last read from SQLite. */
  private fileState = '';
  private fileMtimeMs = 0;
  private watcher: FSWatcher | undefined;
  private watchRetryAt = 0;
  /** False once the folder changed since the last stat (or when it is not watched). */
  private statHolds = false;
  private statAt = 0;
  private known: { fileState: string; version: string; checkedAt: number; settled: boolean } | undefined;
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
    // Asking SQLite (a shared lock and a read of the file header) was 11% of the CPU of a cached live page. A stat,
    // which run() makes anyway, answers the same question for a file in rollback-journal mode (the import CLI's):
    // a commit writes the file, so its mtime moves. Timestamps are coarse, so the stat is trusted only once the
    // file has been still for a second; and SQLite is still asked once a second, so a lock held by another
    // process shows as it did. A file in WAL mode (commits go to the -wal file) is always asked.
    return this.run((s) => {
      const now = Date.now();
      const known = this.known;
      if (known?.settled && known.fileState === this.fileState && now - known.checkedAt < VERSION_RECHECK_MS) return known.version;
      const version = `${this.generation}:${s.dataVersion.get() as number}`;
      const settled = s.journalMode.get() !== 'wal' && this.fileMtimeMs < now - VERSION_RECHECK_MS;
      this.known = { fileState: this.fileState, version, checkedAt: now, settled };
      return version;
    });
  }

  /** Runs a real query against the schema; throws StoreUnavailableError when that fails. */
  check(): void {
    this.run((s) => s.check.get());
  }

  /** Whether a real query against the schema answers now (health): the one place unavailability is a value. */
  isAvailable(): boolean {
    try {
      this.check();
      return true;
    } catch (err) {
      if (err instanceof StoreUnavailableError) return false;
      throw err;
    }
  }

  profile(slug: string): Profile | undefined {
    const found = this.run((s) => {
      const row = s.profile.get(slug) as ProfileRow | undefined;
      if (!row) return undefined;
      return { row, links: s.links.all(row.id) as LinkRow[], socials: s.socials.all(row.id) as { network: string; url: string }[] };
    });
    if (!found) return undefined;
    const { row, links, socials } = found;
    return {
      slug: row.slug,
      name: row.name,
      bio: row.bio,
      lang: row.lang,
      kind: row.kind,
      avatarUrl: row.avatar_url,
      plan: row.plan,
      updatedAt: row.updated_at,
      links: links.map((l) => ({ title: l.title, url: l.url, pinned: l.pinned === 1, startsAt: l.starts_at, endsAt: l.ends_at })),
      socials,
    };
  }

  card(cardId: string): Card | undefined {
    const row = this.run((s) => s.card.get(cardId) as CardRow | undefined);
    if (!row) return undefined;
    // Mapped outside run(): a row that does not hold what the schema promises is a data defect (logged as an
    // error, answered 500), not an unavailable database.
    return {
      cardId: row.card_id,
      mode: row.mode,
      redirectUrl: row.redirect_url,
      lang: row.lang,
      name: row.name,
      jobTitle: row.job_title,
      organization: row.organization,
      phones: stringList(row.phones, `cards.phones of card ${cardId}`),
      emails: stringList(row.emails, `cards.emails of card ${cardId}`),
      website: row.website,
      address: row.address,
      photoUrl: row.photo_url,
      profileSlug: row.profile_slug,
      updatedAt: row.updated_at,
    };
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
      ...(s.sitemapProfiles.all() as { slug: string; updated_at: string }[]).map((r) => ({ path: paths.profile(r.slug), lastmod: r.updated_at })),
      ...(s.sitemapCards.all() as { card_id: string; updated_at: string }[]).map((r) => ({ path: paths.card(r.card_id), lastmod: r.updated_at })),
    ]);
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.closeDatabase();
  }

  /**
   * Watches the folder (inotify on Linux) so that a write, a replacement or a removal of the file marks the last
   * stat as stale. The event is queued by the kernel when the writer writes, so it is read before any request sent
   * after the writer finished. Where watching fails (no such folder yet, no inotify), every read stats the file.
   */
  private watchFolder(now: number): void {
    if (this.watcher || now < this.watchRetryAt) return;
    try {
      const watcher = watch(dirname(this.path), { persistent: false }, () => {
        this.statHolds = false;
      });
      watcher.on('error', () => {
        watcher.close();
        if (this.watcher === watcher) this.watcher = undefined;
        this.statHolds = false;
      });
      this.watcher = watcher;
    } catch {
      this.watchRetryAt = now + VERSION_RECHECK_MS;
    }
  }

  private checkReadable(): void {
    try {
      accessSync(this.path, constants.R_OK);
    } catch (err) {
      throw new StoreUnavailableError(`database file ${this.path} is not readable`, { cause: err });
    }
  }

  private closeDatabase(): void {
    try {
      this.db?.close();
    } catch {
      // Closing a connection to a vanished or corrupt file can fail; it is gone either way.
    }
    this.db = undefined;
    this.statements = undefined;
    this.known = undefined;
  }

  /**
   * Runs queries against the open database. What the driver throws (SqliteError, or its TypeError/RangeError for a
   * connection that went away under it) means the database cannot be read: StoreUnavailableError. Callers map rows
   * outside, so that their own mistakes are not reported as an unavailable database.
   */
  private run<T>(query: (s: ReturnType<typeof prepare>) => T): T {
    if (Date.now() < this.lockedUntil) throw new StoreUnavailableError('database is locked by another process');
    const statements = this.open();
    try {
      return query(statements);
    } catch (err) {
      if (err instanceof Database.SqliteError || err instanceof TypeError || err instanceof RangeError) {
        if (err instanceof Database.SqliteError && err.code.startsWith('SQLITE_BUSY')) this.lockedUntil = Date.now() + this.lockBackoffMs;
        this.closeDatabase();
        throw new StoreUnavailableError(`database query failed: ${(err as Error).message}`, { cause: err });
      }
      throw err;
    }
  }

  private open(): ReturnType<typeof prepare> {
    // While nothing in the database's folder has changed, the last stat still holds (re-taken once a second
    // anyway): a stat per request was 12% of the CPU of a cached live page.
    const now = Date.now();
    if (this.statements && this.statHolds && now - this.statAt < VERSION_RECHECK_MS) return this.statements;
    this.watchFolder(now);
    this.statHolds = this.watcher !== undefined;
    this.statAt = now;
    let fileId: string;
    try {
      const st = statSync(this.path);
      fileId = `${st.dev}:${st.ino}`;
      const fileState = `${fileId}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
      // Its mode or owner changed (ctime moves with them): is it still readable? An open connection would go on
      // reading what the owner just made unreadable.
      if (fileState !== this.fileState) this.checkReadable();
      this.fileState = fileState;
      this.fileMtimeMs = st.mtimeMs;
    } catch (err) {
      this.closeDatabase();
      this.fileState = '';
      if (err instanceof StoreUnavailableError) throw err;
      throw new StoreUnavailableError(`database file ${this.path} is not there`, { cause: err });
    }
    // The file at the path was replaced (an atomic deploy, or a restore): read the new one.
    if (this.db && fileId !== this.fileId) this.closeDatabase();
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
    journalMode: db.prepare('PRAGMA journal_mode').pluck(),
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
