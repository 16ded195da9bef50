// The one way to write the database, whichever backend the configuration names: the CLI, the tests and the bench
// migrate and import through this. SQLite: the file at DATABASE_PATH. PostgreSQL: DATABASE_URL, the primary. The
// only module that opens a backend's writer; the server never imports it.
import { existsSync } from 'node:fs';
import pg from 'pg';
import type { ImportRules } from './import-format.ts';
import { CHANGE_LOG_KEEP, planImport, type ImportOutcome } from './import-plan.ts';
import { importPg, migratePg } from './postgres/pg-writer.ts';
import { importInto, openForWriting } from './sqlite/sqlite-writer.ts';

export interface StoreWriter {
  /** Where it writes, for messages (a file path, or the URL without its password). */
  readonly target: string;
  /** Brings the schema up to date; the versions applied. */
  migrate(): Promise<number[]>;
  /** Validates completely, then writes in one transaction, or not at all. */
  importData(json: unknown): Promise<ImportOutcome>;
  close(): Promise<void>;
}

/** Where to write, and (`baseUrl`, the site the data will be served on) what an import is judged against. */
export async function openWriter(
  config: { databasePath: string; databaseUrl?: string | undefined } & ImportRules,
): Promise<StoreWriter> {
  const rules: ImportRules = { baseUrl: config.baseUrl };
  if (config.databaseUrl) {
    const client = new pg.Client({ connectionString: config.databaseUrl, application_name: 'bio-db-cli' });
    await client.connect();
    const url = new URL(config.databaseUrl);
    url.password = '';
    return {
      target: url.href,
      migrate: () => migratePg(client),
      importData: async (json) => {
        await migratePg(client);
        return importPg(client, json, CHANGE_LOG_KEEP, rules);
      },
      close: () => client.end(),
    };
  }
  const path = config.databasePath;
  // The file (and its folder) is made when something will be written to it, not before.
  let opened: ReturnType<typeof openForWriting> | undefined;
  const open = () => (opened ??= openForWriting(path));
  return {
    target: path,
    migrate: async () => open().migrated,
    importData: async (json) => {
      // Into a file that does not exist yet, an import is judged before the file is made: a refused one leaves no
      // empty database behind (which `npm start` would then serve).
      if (!opened && !existsSync(path)) {
        const planned = planImport(json, new Set(), rules);
        if (!planned.ok) return planned;
      }
      return importInto(open().db, json, CHANGE_LOG_KEEP, rules);
    },
    close: async () => {
      opened?.db.close();
    },
  };
}
