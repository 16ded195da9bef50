// The database as Kysely sees it, derived from the one declaration of the tables (src/lib/live-schema.ts): every
// column's stored type, a generated key as Generated. The store's reads (reads.ts) and the import's writes
// (import-plan.ts) are written against it, so a misnamed, missing or mistyped column is a compile error on both
// backends. Kysely builds and compiles the SQL for each dialect; it is the typed query builder the issue names, and
// the one kysely's own tests hold to SQLite and PostgreSQL alike.
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Dialect,
  type Generated,
} from 'kysely';
import type { StoredRow, Tables } from '../../src/lib/live-schema.ts';

type KeyColumns<T> = { [C in keyof T]: T[C] extends { key: true } ? C : never }[keyof T];
type KyselyTable<T extends Tables[keyof Tables]> = {
  [C in keyof StoredRow<T>]: C extends KeyColumns<T> ? Generated<StoredRow<T>[C]> : StoredRow<T>[C];
};

export type Database = { [T in keyof Tables]: KyselyTable<Tables[T]> };

export type DialectName = 'sqlite' | 'postgres';

/** A Kysely that only builds and compiles queries for `dialect` (no connection): the store runs what it compiles. */
export function compilerFor(dialect: DialectName): Kysely<Database> {
  const compileOnly: Dialect =
    dialect === 'sqlite'
      ? {
          createAdapter: () => new SqliteAdapter(),
          createDriver: () => new DummyDriver(),
          createIntrospector: (db) => new SqliteIntrospector(db),
          createQueryCompiler: () => new SqliteQueryCompiler(),
        }
      : {
          createAdapter: () => new PostgresAdapter(),
          createDriver: () => new DummyDriver(),
          createIntrospector: (db) => new PostgresIntrospector(db),
          createQueryCompiler: () => new PostgresQueryCompiler(),
        };
  return new Kysely<Database>({ dialect: compileOnly });
}
