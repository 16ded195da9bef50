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
import { copyFileSync, existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { postgresBin } from './postgres-bin.ts';

interface Target {
  databasePath: string;
  databaseUrl?: string | undefined;
}

/** A PostgreSQL client program: Debian's newest installed, else the one on PATH. */
function pgProgram(name: 'pg_dump' | 'pg_restore'): string {
  const bin = postgresBin();
  return bin && existsSync(join(bin, name)) ? join(bin, name) : name;
}

export async function backup(target: Target, file: string): Promise<string> {
  if (target.databaseUrl) {
    execFileSync(pgProgram('pg_dump'), ['--format=custom', '--no-owner', '--file', file, target.databaseUrl], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return `PostgreSQL database backed up to ${file} (pg_dump, custom format).`;
  }
  const db = new Database(target.databasePath, { readonly: true, fileMustExist: true });
  try {
    await db.backup(file);
  } finally {
    db.close();
  }
  return `${target.databasePath} backed up to ${file}.`;
}

/** Why `file` is not a backup this service can restore, if it is not one. */
function sqliteProblem(file: string): string | undefined {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const check = db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') return `it is a damaged SQLite database (integrity_check: ${String(check)})`;
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'profiles'").all();
    if (tables.length === 0) return 'it is a SQLite database, but not one of this service (no profiles table)';
    return undefined;
  } catch (err) {
    return `it is not a SQLite database (${(err as Error).message})`;
  } finally {
    db?.close();
  }
}

export function restore(target: Target, file: string): string {
  if (!existsSync(file)) throw new Error(`there is no file ${file}`);
  if (target.databaseUrl) {
    execFileSync(
      pgProgram('pg_restore'),
      ['--clean', '--if-exists', '--no-owner', '--single-transaction', '--dbname', target.databaseUrl, file],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return `Restored ${file} into the PostgreSQL database.`;
  }
  const problem = sqliteProblem(file);
  if (problem) throw new Error(`${file} cannot be restored: ${problem}; nothing was changed`);
  // A copy beside the database, renamed over it: readers see the old file or the new one, never half of one.
  const staged = `${target.databasePath}.restoring`;
  copyFileSync(file, staged);
  renameSync(staged, target.databasePath);
  return `Restored ${file} to ${target.databasePath}.`;
}
