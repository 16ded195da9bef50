// Writing the database: the one path every writer here takes (the CLI, the tests, the bench). The schema is
// migrated, then an import is validated completely and written in one transaction, or not at all.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { validateImport } from './import-format.ts';
import { applyImport } from './import-writer.ts';
import { migrate } from './migrations.ts';

/** Opens (creating it and its folder if needed) and migrates the database; `migrated` lists the versions applied. */
export function openForWriting(path: string): { db: Database.Database; migrated: number[] } {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: 5000 });
  db.pragma('foreign_keys = ON');
  return { db, migrated: migrate(db) };
}

/** Rows of the change log a writer keeps (import prunes older ones): a sidecar further behind drops its whole cache. */
export const CHANGE_LOG_KEEP = 100_000;

export type ImportOutcome = { ok: true; counts: ReturnType<typeof applyImport> } | { ok: false; errors: string[] };

/** Validates `json` against the format, itself and what `db` holds, then writes it in one transaction. */
export function importInto(db: Database.Database, json: unknown): ImportOutcome {
  const known = db.prepare('SELECT 1 FROM profiles WHERE slug = ?').pluck();
  const { data, errors } = validateImport(json, (slug) => known.get(slug) !== undefined);
  if (!data) return { ok: false, errors };
  const counts = applyImport(db, data);
  db.prepare('DELETE FROM changes WHERE seq <= (SELECT max(seq) FROM changes) - ?').run(CHANGE_LOG_KEEP);
  return { ok: true, counts };
}

/** A database file holding `json`, for the tests and the bench; throws with every problem when `json` is invalid. */
export function writeDatabase(path: string, json: unknown): string {
  const { db } = openForWriting(path);
  try {
    const outcome = importInto(db, json);
    if (!outcome.ok) throw new Error(outcome.errors.join('\n'));
  } finally {
    db.close();
  }
  return path;
}
