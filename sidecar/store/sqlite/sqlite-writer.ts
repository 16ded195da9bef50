// Writing the SQLite file: the one path every SQLite writer here takes (the CLI, the tests, the bench). The schema
// is migrated, then an import is validated completely and written in one transaction, or not at all.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import {
  CHANGE_LOG_KEEP,
  countsOf,
  importSteps,
  planImport,
  referencedSlugs,
  type ImportOutcome,
} from '../import-plan.ts';
import type { ImportRules } from '../import-format.ts';
import { pendingMigrations, SCHEMA_VERSION } from '../migrations.ts';
import { WRITES } from '../sql.ts';

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

/** Validates `json` against the format, itself and what `db` holds, then writes it in one transaction. */
export function importInto(
  db: Database.Database,
  json: unknown,
  keepChanges: number,
  rules: ImportRules = {},
): ImportOutcome {
  const exists = db.prepare(WRITES.profileId);
  const planned = planImport(
    json,
    new Set(referencedSlugs(json).filter((slug) => exists.get(slug) !== undefined)),
    rules,
  );
  if (!planned.ok) return planned;
  const statements = new Map<string, Database.Statement>();
  const statement = (sql: string) => statements.get(sql) ?? statements.set(sql, db.prepare(sql)).get(sql)!;
  db.transaction(() => {
    const steps = importSteps(planned.plan, keepChanges);
    for (let step = steps.next(); !step.done;) {
      const { sql, params, get } = step.value;
      step = steps.next(
        get
          ? (statement(sql).get(...params) as { id: number } | undefined)
          : (statement(sql).run(...params), undefined),
      );
    }
  })();
  return { ok: true, counts: countsOf(planned.plan) };
}

/** A database file holding `json`, for the tests and the bench; throws with every problem when `json` is invalid. */
export function writeDatabase(path: string, json: unknown): string {
  const { db } = openForWriting(path);
  try {
    const outcome = importInto(db, json, CHANGE_LOG_KEEP);
    if (!outcome.ok) throw new Error(outcome.errors.join('\n'));
  } finally {
    db.close();
  }
  return path;
}
