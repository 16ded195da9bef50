// One read-only connection to the SQLite file and its prepared statements: opened on first use, reopened when the
// file at the path is another one, closed on any driver failure, and failing fast for a while after a lock timeout
// (better-sqlite3 waits synchronously, and a wait stalls every request).
import Database from 'better-sqlite3';
import { SCHEMA_VERSION } from '../migrations.ts';
import { StoreUnavailableError } from '../store.ts';

export type Statements = ReturnType<typeof prepare>;

export interface ConnectionOptions {
  /** How long a query waits for a lock held by another process before the store counts as unavailable. */
  busyTimeoutMs?: number;
  /** After such a timeout, how long every query fails at once instead of waiting again. */
  lockBackoffMs?: number;
}

export class SqliteConnection {
  private readonly path: string;
  private readonly busyTimeoutMs: number;
  private readonly lockBackoffMs: number;
  private db: Database.Database | undefined;
  private statements: Statements | undefined;
  private fileId = '';
  private lockedUntil = 0;
  /** Bumped on every open, so that what was cached from an earlier file is never served. */
  generation = 0;

  constructor(path: string, options: ConnectionOptions = {}) {
    this.path = path;
    this.busyTimeoutMs = options.busyTimeoutMs ?? 250;
    this.lockBackoffMs = options.lockBackoffMs ?? 1000;
  }

  /**
   * Runs queries on the connection to the file `fileId` names (reopening when it is another file). What the driver
   * throws (SqliteError, or its TypeError/RangeError for a connection that went away under it) means the database
   * cannot be read: StoreUnavailableError. Callers map rows outside, so their own mistakes are not reported so.
   */
  run<T>(fileId: string, query: (s: Statements) => T): T {
    if (Date.now() < this.lockedUntil) throw new StoreUnavailableError('database is locked by another process');
    const statements = this.open(fileId);
    try {
      return query(statements);
    } catch (err) {
      if (err instanceof Database.SqliteError || err instanceof TypeError || err instanceof RangeError) {
        this.backOffIfBusy(err);
        this.close();
        throw new StoreUnavailableError(`database query failed: ${(err as Error).message}`, { cause: err });
      }
      throw err;
    }
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

  private open(fileId: string): Statements {
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
      this.backOffIfBusy(err);
      if (err instanceof StoreUnavailableError) throw err;
      throw new StoreUnavailableError(`cannot open database ${this.path}: ${(err as Error).message}`, { cause: err });
    }
    this.db = db;
    this.fileId = fileId;
    this.generation++;
    return this.statements;
  }

  private backOffIfBusy(err: unknown): void {
    if (err instanceof Database.SqliteError && err.code.startsWith('SQLITE_BUSY')) this.lockedUntil = Date.now() + this.lockBackoffMs;
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
    changes: db.prepare('SELECT kind, key FROM changes WHERE seq > ? ORDER BY seq LIMIT ?'),
    changeBounds: db.prepare('SELECT coalesce(min(seq), 0) AS first, coalesce(max(seq), 0) AS last FROM changes'),
    identity: db.prepare('SELECT id FROM store_identity').pluck(),
    profileCount: db.prepare('SELECT count(*) FROM profiles WHERE published = 1').pluck(),
    cardCount: db.prepare("SELECT count(*) FROM cards WHERE active = 1 AND mode = 'page'").pluck(),
    profileStarts: db.prepare('SELECT slug FROM (SELECT slug, row_number() OVER (ORDER BY slug) AS n FROM profiles WHERE published = 1) WHERE (n - 1) % ? = 0 ORDER BY slug').pluck(),
    cardStarts: db
      .prepare("SELECT card_id FROM (SELECT card_id, row_number() OVER (ORDER BY card_id) AS n FROM cards WHERE active = 1 AND mode = 'page') WHERE (n - 1) % ? = 0 ORDER BY card_id")
      .pluck(),
    profilesFrom: db.prepare('SELECT slug AS key, updated_at FROM profiles WHERE published = 1 AND slug >= ? ORDER BY slug LIMIT ?'),
    cardsFrom: db.prepare("SELECT card_id AS key, updated_at FROM cards WHERE active = 1 AND mode = 'page' AND card_id >= ? ORDER BY card_id LIMIT ?"),
  };
}
