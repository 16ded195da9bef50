// Backups and restores of the database (#50), for `npm run db -- backup FILE | restore FILE`: owners' images live in
// the database, so one file holds everything a site serves but its build.
//
// SQLite: an online, consistent copy through SQLite's backup API (better-sqlite3 `backup`), taken from a read-only
// connection while servers read and the writer writes; a restore checks the file is a sound database of this service,
// then puts it in place by renaming a copy over DATABASE_PATH, which the sidecars see as a file replaced (they reopen
// it, as after an import that rebuilt it).
// PostgreSQL: `pg_dump --format=custom` of the primary (one consistent snapshot, online), and `pg_restore` into the
// database DATABASE_URL names, in one transaction, its objects dropped first; standbys follow the primary as always.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, renameSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { pendingMigrations, SCHEMA_VERSION } from '../sidecar/store/migrations.ts';
import { postgresBin } from './postgres-bin.ts';

interface Target {
  databasePath: string;
  databaseUrl?: string | undefined;
}

/** A PostgreSQL client program: Debian's newest installed, else the one on PATH. */
function pgProgram(name: 'pg_dump' | 'pg_restore'): string {
  const bin = postgresBin(name);
  return bin ? join(bin, name) : name;
}

/** The table a backup carries of its images' SHA-256, made by `backup`, checked and dropped by `restore` (issue 64). */
const CHECKSUMS = 'backup_image_sha256';
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Whether two paths name one file (the second may not exist yet). */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    const [x, y] = [statSync(a), statSync(b)];
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

export async function backup(target: Target, file: string): Promise<string> {
  if (target.databaseUrl) {
    execFileSync(pgProgram('pg_dump'), ['--format=custom', '--no-owner', '--file', file, target.databaseUrl], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return `PostgreSQL database backed up to ${file} (pg_dump, custom format).`;
  }
  if (sameFile(file, target.databasePath))
    throw new Error('it is the live database itself: back up to another file, kept off this machine');
  const db = new Database(target.databasePath, { readonly: true, fileMustExist: true });
  try {
    await db.backup(file);
  } finally {
    db.close();
  }
  // Each image's SHA-256 in the backup itself, so that a restore finds bytes damaged since (SQLite's integrity check
  // reads the pages' structure, not what a value holds).
  const copy = new Database(file);
  try {
    copy.exec(`CREATE TABLE ${CHECKSUMS} (name TEXT PRIMARY KEY, sha256 TEXT NOT NULL)`);
    const add = copy.prepare(`INSERT INTO ${CHECKSUMS} (name, sha256) VALUES (?, ?)`);
    const bytesOf = copy.prepare('SELECT bytes FROM images WHERE name = ?').pluck();
    // One image in memory at a time (a connection reads or writes, not both at once).
    const names = copy.prepare('SELECT name FROM images').pluck().all() as string[];
    copy.transaction(() => {
      for (const name of names) add.run(name, sha256(bytesOf.get(name) as Buffer));
    })();
  } finally {
    copy.close();
  }
  return `${target.databasePath} backed up to ${file}.`;
}

/** Each table's columns, by name, of a SQLite database (this service's tables only: not SQLite's, not a backup's). */
function columnsOf(db: Database.Database): Record<string, string[]> {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != ? ORDER BY name",
    )
    .pluck()
    .all(CHECKSUMS) as string[];
  return Object.fromEntries(
    tables.map((table) => [
      table,
      db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY name').pluck().all(table) as string[],
    ]),
  );
}

/** The tables and columns this service's schema has at `version`: its migrations applied to an empty database. */
function schemaAt(version: number): Record<string, string[]> {
  const fresh = new Database(':memory:');
  try {
    for (const m of pendingMigrations(0, version)) fresh.exec(m.sql);
    return columnsOf(fresh);
  } finally {
    fresh.close();
  }
}

/**
 * Why `file` is not a backup this service can restore, if it is not one (issue 64): a sound SQLite database, of this
 * service (its tables and columns exactly those of its schema version), not newer than this release, and every image
 * as it was backed up (the checksums `backup` wrote, when it carries them). A note when it carries none.
 */
function sqliteProblem(file: string): { problem?: string; note?: string } {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') return { problem: `it is a damaged SQLite database (integrity_check: ${String(check)})` };
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION)
      return {
        problem: `it is at schema version ${version}, newer than this release knows (${SCHEMA_VERSION}): restore it with the release that made it`,
      };
    const has = columnsOf(db);
    const expected = version >= 1 ? schemaAt(version) : undefined;
    if (!expected || JSON.stringify(has) !== JSON.stringify(expected)) {
      const tables = Object.keys(has).join(', ') || 'none';
      return {
        problem:
          version >= 1
            ? `it is a SQLite database marked schema version ${version}, but its tables are not this service's at that version (its tables: ${tables.slice(0, 200)})`
            : `it is a SQLite database, but not one of this service: it has no schema version (its tables: ${tables.slice(0, 200)})`,
      };
    }
    const sums = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(CHECKSUMS);
    if (!sums)
      return { note: 'it carries no checksums of its images (not made by `db backup`): their bytes were not verified' };
    const expectedSums = new Map(
      (db.prepare(`SELECT name, sha256 FROM ${CHECKSUMS}`).all() as { name: string; sha256: string }[]).map((r) => [
        r.name,
        r.sha256,
      ]),
    );
    for (const { name, bytes } of db.prepare('SELECT name, bytes FROM images').iterate() as Iterable<{
      name: string;
      bytes: Buffer;
    }>) {
      const sum = expectedSums.get(name);
      if (sum === undefined) return { problem: `image ${name} is not one it was backed up with` };
      if (sum !== sha256(bytes)) return { problem: `image ${name} is damaged: its bytes are not those backed up` };
      expectedSums.delete(name);
    }
    if (expectedSums.size > 0) return { problem: `image ${[...expectedSums.keys()][0]} is missing from it` };
    return {};
  } catch (err) {
    return { problem: `it is not a SQLite database (${(err as Error).message})` };
  } finally {
    db?.close();
  }
}

/**
 * Why `file` is not a pg_dump of this service that this release can restore (issue 64), read from the archive itself
 * before anything is restored: a custom-format archive (pg_restore --list reads its table of contents), its tables
 * exactly those of its schema version (this service's, from its migrations, and the writer's schema_version), that
 * version recorded in it and not newer than this release.
 */
function pgDumpProblem(file: string): string | undefined {
  const restoreProgram = pgProgram('pg_restore');
  let contents: string;
  try {
    contents = execFileSync(restoreProgram, ['--list', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const said = (err as { stderr?: string }).stderr?.trim().split('\n')[0] ?? (err as Error).message;
    return `it is not a pg_dump archive (${said})`;
  }
  const tables = [...contents.matchAll(/^\d+; \d+ \d+ TABLE public (\S+) /gm)].map((m) => m[1]!).sort();
  let version = 0;
  if (tables.includes('schema_version')) {
    const rows = execFileSync(restoreProgram, ['--data-only', '--table=schema_version', '--file=-', file], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 1024 * 1024,
    });
    const copied = /^COPY public\.schema_version \(version\) FROM stdin;\n([\s\S]*?)^\\\.$/m.exec(rows)?.[1] ?? '';
    version = Math.max(0, ...copied.split('\n').filter(Boolean).map(Number));
  }
  if (version > SCHEMA_VERSION)
    return `it is at schema version ${version}, newer than this release knows (${SCHEMA_VERSION}): restore it with the release that made it`;
  const expected = version >= 1 ? [...Object.keys(schemaAt(version)), 'schema_version'].sort() : undefined;
  if (!expected || JSON.stringify(tables) !== JSON.stringify(expected))
    return `it is a pg_dump archive, but not one of this service at schema version ${version} (its tables: ${tables.join(', ').slice(0, 200) || 'none'})`;
  return undefined;
}

export async function restore(target: Target, file: string): Promise<string> {
  if (!existsSync(file)) throw new Error(`there is no file ${file}`);
  if (target.databaseUrl) {
    const problem = pgDumpProblem(file);
    if (problem) throw new Error(`${problem}; nothing was changed`);
    execFileSync(
      pgProgram('pg_restore'),
      ['--clean', '--if-exists', '--no-owner', '--single-transaction', '--dbname', target.databaseUrl, file],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return `Restored ${file} into the PostgreSQL database.`;
  }
  if (sameFile(file, target.databasePath)) throw new Error('it is the live database itself; nothing was changed');
  if (!existsSync(dirname(resolve(target.databasePath))))
    throw new Error(
      `there is no folder ${dirname(resolve(target.databasePath))} for DATABASE_PATH: make it first; nothing was changed`,
    );
  const { problem, note } = sqliteProblem(file);
  if (problem) throw new Error(`${problem}; nothing was changed`);
  // A copy beside the database, its checksums dropped, renamed over it: readers see the old file or the new one,
  // never half of one.
  const staged = `${target.databasePath}.restoring`;
  copyFileSync(file, staged);
  const copy = new Database(staged);
  try {
    copy.exec(`DROP TABLE IF EXISTS ${CHECKSUMS}`);
  } finally {
    copy.close();
  }
  // The database it replaces, kept beside it (a consistent copy, as a backup takes it): a restore can be undone.
  let kept: string | undefined;
  if (existsSync(target.databasePath)) {
    kept = `${target.databasePath}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const live = new Database(target.databasePath, { readonly: true, fileMustExist: true });
    try {
      await live.backup(kept);
    } finally {
      live.close();
    }
  }
  renameSync(staged, target.databasePath);
  return [
    `Restored ${file} to ${target.databasePath}.`,
    ...(kept ? [`The database it replaced is kept as ${kept}.`] : []),
    ...(note ? [`Note: ${note}.`] : []),
  ].join('\n');
}
