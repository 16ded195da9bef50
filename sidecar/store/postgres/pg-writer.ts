// Writing PostgreSQL (the primary): the same migrations and the same import steps as SQLite's, the import validated
// completely and written in one transaction. Used by the CLI, the tests and the bench; never the server.
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../database.ts';
import { planImport, referencedSlugs, writeImport, type ImportPlan, type PlanOutcome } from '../import-plan.ts';
import type { ImportRules } from '../import-format.ts';
import { pendingMigrations, SCHEMA_VERSION } from '../migrations.ts';

/** Applies the pending migrations (migrations.ts decides which), each in its own transaction, under an advisory lock. */
export async function migratePg(client: pg.ClientBase, upTo = SCHEMA_VERSION): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock(724301)');
  try {
    await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
    const current = Number(
      (await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_version')).rows[0]?.v ?? 0,
    );
    const applied: number[] = [];
    for (const m of pendingMigrations(current, upTo)) {
      await transaction(client, async () => {
        await client.query(m.postgres);
        await client.query('INSERT INTO schema_version (version) VALUES ($1)', [m.version]);
      });
      applied.push(m.version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock(724301)');
  }
}

/** The plan for `json`, judged against the format, itself and what the database holds (its images not yet taken). */
export async function planPg(client: pg.ClientBase, json: unknown, rules: ImportRules = {}): Promise<PlanOutcome> {
  // The slugs the file refers to, looked up at once (validation itself is synchronous).
  const referenced = referencedSlugs(json);
  const known = new Set(
    referenced.length
      ? (await client.query<{ slug: string }>('SELECT slug FROM profiles WHERE slug = ANY($1)', [referenced])).rows.map(
          (r) => r.slug,
        )
      : [],
  );
  return planImport(json, known, rules);
}

/** Writes a plan in one transaction, then prunes the change log to its newest `keepChanges` rows. */
export async function writePlanPg(client: pg.ClientBase, plan: ImportPlan, keepChanges: number): Promise<void> {
  // Kysely over the writer's one connection (a pool of it: the writer holds one and gives it to no one else).
  const kysely = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: {
        connect: async () => ({ query: client.query.bind(client), release: () => undefined }),
        end: async () => undefined,
        options: {},
      },
    }),
  });
  await transaction(client, () => writeImport(kysely, plan, keepChanges));
}

async function transaction(client: pg.ClientBase, work: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
}
