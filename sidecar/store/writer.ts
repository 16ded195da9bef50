// The one way to write the database, whichever backend the configuration names: the CLI, the tests and the bench
// migrate and import through this. SQLite: the file at DATABASE_PATH. PostgreSQL: DATABASE_URL, the primary. The
// only module that opens a backend's writer; the server never imports it.
import { existsSync } from 'node:fs';
import pg from 'pg';
import { withImages, type IntakeOptions } from './image-intake.ts';
import type { ImportRules } from './import-format.ts';
import {
  CHANGE_LOG_KEEP,
  countsOf,
  planImport,
  type ImportOutcome,
  type ImportPlan,
  type PlanOutcome,
} from './import-plan.ts';
import { migratePg, planPg, writePlanPg } from './postgres/pg-writer.ts';
import { openForWriting, planIn, writePlan } from './sqlite/sqlite-writer.ts';

export interface StoreWriter {
  /** Where it writes, for messages (a file path, or the URL without its password). */
  readonly target: string;
  /** Brings the schema up to date; the versions applied. */
  migrate(): Promise<number[]>;
  /**
   * Validates completely, takes the images it names (image-intake.ts: `images.from` is the import file, against which
   * relative references resolve), then writes in one transaction, or not at all.
   */
  importData(json: unknown, images?: IntakeOptions): Promise<ImportOutcome>;
  close(): Promise<void>;
}

/** A backend's part of an import: the plan judged against what it holds, and the plan written. */
interface Backend {
  plan(json: unknown): Promise<PlanOutcome>;
  write(plan: ImportPlan): Promise<void>;
}

/** Plans, takes the images, writes: the one order of an import, whichever backend. */
async function importWith(backend: Backend, json: unknown, images: IntakeOptions | undefined): Promise<ImportOutcome> {
  const planned = await backend.plan(json);
  if (!planned.ok) return planned;
  const taken = await withImages(planned.plan, images);
  if (!taken.ok) return taken;
  await backend.write(taken.plan);
  return { ok: true, counts: countsOf(taken.plan), notices: taken.plan.notices };
}

/** Where to write, and (`baseUrl`, the site the data will be served on) what an import is judged against. */
/** What a server says while it cannot take a connection yet: refused, not found yet, or starting up (57P03). */
const NOT_YET = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', '57P03']);

/**
 * A connection to `url`, trying again for up to `waitMs` while the server is not up yet (a compose file's PostgreSQL
 * making its cluster as the import starts: issue 61); any other failure (a wrong password, no such database) at once.
 */
async function connectWhenReady(url: string, waitMs: number): Promise<pg.Client> {
  const until = Date.now() + waitMs;
  for (let said = false; ;) {
    const client = new pg.Client({ connectionString: url, application_name: 'bio-db-cli' });
    try {
      await client.connect();
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      const code = (error as { code?: string }).code;
      if (!code || !NOT_YET.has(code) || Date.now() >= until) throw error;
      if (!said) console.error(`The database does not answer yet (${code}): trying again for ${waitMs / 1000} s…`);
      said = true;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

export async function openWriter(
  config: { databasePath: string; databaseUrl?: string | undefined; waitForDatabaseMs?: number } & ImportRules,
): Promise<StoreWriter> {
  const rules: ImportRules = { baseUrl: config.baseUrl };
  if (config.databaseUrl) {
    const client = await connectWhenReady(config.databaseUrl, config.waitForDatabaseMs ?? 0);
    const url = new URL(config.databaseUrl);
    url.password = '';
    return {
      target: url.href,
      migrate: () => migratePg(client),
      importData: async (json, images) => {
        await migratePg(client);
        return importWith(
          { plan: (data) => planPg(client, data, rules), write: (plan) => writePlanPg(client, plan, CHANGE_LOG_KEEP) },
          json,
          images,
        );
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
    importData: (json, images) =>
      importWith(
        {
          // Into a file that does not exist yet, an import is judged before the file is made: a refused one leaves
          // no empty database behind (which `npm start` would then serve).
          plan: async (data) =>
            !opened && !existsSync(path) ? planImport(data, new Set(), rules) : planIn(open().db, data, rules),
          write: (plan) => writePlan(open().db, plan, CHANGE_LOG_KEEP),
        },
        json,
        images,
      ),
    close: async () => {
      opened?.db.close();
    },
  };
}

/** A SQLite file holding `json`, for the tests and the bench; throws with every problem when `json` is invalid. */
export async function writeDatabase(path: string, json: unknown, images?: IntakeOptions): Promise<string> {
  const writer = await openWriter({ databasePath: path });
  try {
    const outcome = await writer.importData(json, images);
    if (!outcome.ok) throw new Error(outcome.errors.join('\n'));
  } finally {
    await writer.close();
  }
  return path;
}
