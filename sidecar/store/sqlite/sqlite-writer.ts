// Writing the SQLite file: the one path every SQLite writer here takes (the CLI, the tests, the bench). The schema
// is migrated, then an import is validated completely (writer.ts takes its images) and written in one transaction, or
// not at all.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database as Tables } from '../database.ts';
import { planImport, referencedSlugs, writeImport, type ImportPlan, type PlanOutcome } from '../import-plan.ts';
import type { ImportRules } from '../import-format.ts';
import { pendingMigrations, SCHEMA_VERSION } from '../migrations.ts';

/** Opens (creating it and its folder if needed) and migrates the database; `migrated` lists the versions applied. */
export function openForWriting(path: string): { db: Database.Database; migrated: number[] } {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: 5000 });
  db.pragma('foreign_keys = ON');
  return { db, migrated: migrate(db) };
}

/** Applies the pending migrations (migrations.ts decides which), each in its own transaction; the versions applied. */
export function migrate(db: Database.Database, upTo = SCHEMA_VERSION): number[] {
  const applied: number[] = [];
  for (const m of pendingMigrations(db.pragma('user_version', { simple: true }) as number, upTo)) {
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
    applied.push(m.version);
  }
  return applied;
}

/** The plan for `json`, judged against the format, itself and what `db` holds (its images not yet taken). */
export function planIn(db: Database.Database, json: unknown, rules: ImportRules = {}): PlanOutcome {
  const referenced = referencedSlugs(json);
  const known = new Set<string>();
  const exists = db.prepare('SELECT 1 FROM profiles WHERE slug = ?').pluck();
  for (const slug of referenced) if (exists.get(slug) !== undefined) known.add(slug);
  return planImport(json, known, rules);
}

/** Writes a plan in one transaction, then prunes the change log to its newest `keepChanges` rows. */
export async function writePlan(db: Database.Database, plan: ImportPlan, keepChanges: number): Promise<void> {
  const kysely = new Kysely<Tables>({ dialect: new SqliteDialect({ database: db }) });
  await kysely.transaction().execute((trx) => writeImport(trx, plan, keepChanges));
}
