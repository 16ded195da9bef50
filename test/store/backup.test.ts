// Backups and restores (#50), as the operations guide gives them: `npm run db -- backup FILE` while a server reads and
// a writer writes, then `restore FILE` puts that moment back, owners' images included, on SQLite (under a running
// server, which follows the file replaced) and on PostgreSQL (restored into the primary, served from the standby). A
// file that is not a backup is refused and changes nothing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../sidecar/store/migrations.ts';
import { openStore } from '../../sidecar/store/open-store.ts';
import { createDatabase } from '../helpers/database.ts';
import { cleanEnv, projectRoot } from '../helpers/env.ts';
import { databaseFromSqlite, replayed, withClient } from '../helpers/postgres.ts';
import { startTestServer } from '../helpers/server.ts';

function db(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync(process.execPath, [join(projectRoot, 'scripts/db.ts'), ...args], {
    env: cleanEnv(env),
    encoding: 'utf8',
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const config = { pgPoolSize: 2, pgStatementTimeoutMs: 2000, maxReplicaLagMs: 30_000 };

describe('a backup of SQLite', () => {
  it('taken while a server reads, restored under it: the server serves that moment again, images included', async () => {
    const databasePath = await createDatabase();
    const server = await startTestServer({ databasePath });
    try {
      const before = await (await fetch(`${server.url}/p/layla`)).text();
      const avatar = /<img class="avatar" src="([^"]+)"/.exec(before)?.[1] ?? '';
      const file = join(dirname(databasePath), 'backup.db');
      const taken = db({ DATABASE_PATH: databasePath }, 'backup', file);
      expect(taken.status, taken.out).toBe(0);
      // After the backup, an edit and an image dropped.
      const raw = new Database(databasePath);
      raw.prepare("UPDATE profiles SET bio = 'Written after the backup' WHERE slug = 'layla'").run();
      raw.prepare('DELETE FROM images WHERE name = ?').run(avatar.split('/').at(-1));
      raw.close();
      await eventually(async () => (await (await fetch(`${server.url}/p/layla`)).text()).includes('after the backup'));

      const restored = db({ DATABASE_PATH: databasePath }, 'restore', file);
      expect(restored.status, restored.out).toBe(0);
      await eventually(async () => !(await (await fetch(`${server.url}/p/layla`)).text()).includes('after the backup'));
      const image = await fetch(server.url + avatar);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/jpeg');
      await image.arrayBuffer();
    } finally {
      await server.close();
    }
  });

  it('refuses to restore a file that is not a backup of this service, and changes nothing', async () => {
    const databasePath = await createDatabase();
    const before = sha(databasePath);
    const notABackup = join(dirname(databasePath), 'notes.txt');
    writeFileSync(notABackup, 'not a database');
    const other = join(dirname(databasePath), 'other.db');
    new Database(other).exec('CREATE TABLE notes (text TEXT)').close();
    for (const file of [notABackup, other, join(dirname(databasePath), 'missing.db')]) {
      const r = db({ DATABASE_PATH: databasePath }, 'restore', file);
      expect(r.status, file).toBe(1);
      expect(r.out).toMatch(/Could not restore .*(not a SQLite database|not one of this service|there is no file)/);
    }
    expect(sha(databasePath)).toBe(before);
  });
});

describe('a restore checks what it takes (issue 64)', () => {
  /** A database of the demo data and a backup of it taken by the CLI. */
  async function backedUp() {
    const databasePath = await createDatabase();
    const file = join(dirname(databasePath), `backup-${Math.random().toString(36).slice(2)}.db`);
    const taken = db({ DATABASE_PATH: databasePath }, 'backup', file);
    expect(taken.status, taken.out).toBe(0);
    return { databasePath, file };
  }
  /** Restoring `file` is refused with a message matching `reason`, one line with no stack trace, and nothing changes. */
  function refused(databasePath: string, file: string, reason: RegExp) {
    const before = sha(databasePath);
    const r = db({ DATABASE_PATH: databasePath }, 'restore', file);
    expect(r.status, r.out).toBe(1);
    expect(r.out).toMatch(reason);
    expect(r.out).not.toMatch(/\n {4}at /);
    expect(sha(databasePath)).toBe(before);
    expect(readdirSync(dirname(databasePath)).filter((f) => f.includes('.replaced-'))).toEqual([]);
  }

  it('refuses a SQLite file with a table named profiles that is not a database of this service', async () => {
    const { databasePath } = await backedUp();
    const other = join(dirname(databasePath), 'lookalike.db');
    new Database(other).exec('CREATE TABLE profiles (id INTEGER PRIMARY KEY, slug TEXT)').close();
    refused(databasePath, other, /not one of this service: it has no schema version/);
    // And with this service's version number on it, but not its tables.
    const numbered = new Database(other);
    numbered.pragma('user_version = 3');
    numbered.close();
    refused(databasePath, other, /marked schema version 3, but its tables are not this service's/);
  });

  it('refuses a backup whose image bytes were damaged, naming the image', async () => {
    const { databasePath, file } = await backedUp();
    const damaged = new Database(file);
    const { name, bytes } = damaged.prepare('SELECT name, bytes FROM images ORDER BY name LIMIT 1').get() as {
      name: string;
      bytes: Buffer;
    };
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    damaged.prepare('UPDATE images SET bytes = ? WHERE name = ?').run(bytes, name);
    damaged.close();
    refused(databasePath, file, new RegExp(`image ${name}`));
  });

  it('refuses a backup from a newer schema, as migrate refuses such a database, in one line', async () => {
    const { databasePath, file } = await backedUp();
    const newer = new Database(file);
    newer.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    newer.close();
    refused(databasePath, file, new RegExp(`schema version ${SCHEMA_VERSION + 1}.*newer`));
    const live = new Database(databasePath);
    live.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    live.close();
    const migrate = db({ DATABASE_PATH: databasePath }, 'migrate');
    expect(migrate.status).toBe(1);
    expect(migrate.out).toMatch(new RegExp(`schema version ${SCHEMA_VERSION + 1}.*newer`));
    expect(migrate.out).not.toMatch(/\n {4}at /);
  });

  it('keeps the database it replaces beside it, readable, with what it held', async () => {
    const { databasePath, file } = await backedUp();
    const raw = new Database(databasePath);
    raw.prepare("UPDATE profiles SET bio = 'Written after the backup' WHERE slug = 'layla'").run();
    raw.close();
    const r = db({ DATABASE_PATH: databasePath }, 'restore', file);
    expect(r.status, r.out).toBe(0);
    const kept = readdirSync(dirname(databasePath)).filter((f) => f.startsWith(`${basename(databasePath)}.replaced-`));
    expect(kept).toHaveLength(1);
    expect(r.out).toContain(kept[0]);
    const old = new Database(join(dirname(databasePath), kept[0]!), { readonly: true });
    expect(old.prepare("SELECT bio FROM profiles WHERE slug = 'layla'").pluck().get()).toBe('Written after the backup');
    old.close();
    const now = new Database(databasePath, { readonly: true });
    expect(now.prepare("SELECT bio FROM profiles WHERE slug = 'layla'").pluck().get()).not.toBe(
      'Written after the backup',
    );
    // The backup's own checksums stay out of the live database.
    expect(now.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'backup%'").all()).toEqual(
      [],
    );
    now.close();
  });

  it('says in one line that the folder DATABASE_PATH names does not exist', async () => {
    const { databasePath, file } = await backedUp();
    const nowhere = join(dirname(databasePath), 'no-such-folder', 'bio.db');
    const r = db({ DATABASE_PATH: nowhere }, 'restore', file);
    expect(r.status).toBe(1);
    expect(r.out).toContain(`there is no folder ${dirname(nowhere)}`);
    expect(r.out).not.toMatch(/ENOENT|\n {4}at /);
  });

  it('refuses to back up onto the live database itself', async () => {
    const databasePath = await createDatabase();
    const before = sha(databasePath);
    const r = db({ DATABASE_PATH: databasePath }, 'backup', databasePath);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/is the live database/);
    expect(sha(databasePath)).toBe(before);
  });
});

describe('a backup of PostgreSQL', () => {
  it('pg_dump of the primary, restored after edits: the standby serves that moment again, images included', async () => {
    const { primary, standby } = await databaseFromSqlite(await createDatabase());
    const store = openStore({ databasePath: '', databaseUrl: standby, ...config });
    try {
      const layla = await store.profile('layla');
      const file = join(dirname(await createDatabase({})), 'backup.pgdump');
      const taken = db({ DATABASE_URL: primary }, 'backup', file);
      expect(taken.status, taken.out).toBe(0);
      await withClient(primary, async (c) => {
        await c.query("UPDATE profiles SET bio = 'Written after the backup' WHERE slug = 'layla'");
        await c.query('DELETE FROM images');
      });
      await replayed();
      expect((await store.profile('layla'))?.bio).toBe('Written after the backup');

      const restored = db({ DATABASE_URL: primary }, 'restore', file);
      expect(restored.status, restored.out).toBe(0);
      await replayed();
      expect(await store.profile('layla')).toEqual(layla);
      expect(await store.image(`${layla!.avatar}-192.jpg`)).toBeDefined();
    } finally {
      await store.close();
    }
  });
});

describe('a PostgreSQL restore checks what it takes (issue 64)', () => {
  /** Rows of the live database that a refused restore must leave as they are. */
  const state = (url: string) =>
    withClient(url, async (c) => (await c.query('SELECT slug, bio FROM profiles ORDER BY slug')).rows as unknown[]);

  it("refuses another database's dump with a table named profiles, and one from a newer schema, changing nothing", async () => {
    const { primary } = await databaseFromSqlite(await createDatabase());
    const folder = dirname(await createDatabase({}));
    const before = await state(primary);
    // A lookalike: another database of the same server with a table named profiles, dumped as the CLI dumps.
    const { primary: other } = await databaseFromSqlite(await createDatabase());
    await withClient(other, async (c) => {
      await c.query('DROP TABLE links CASCADE');
      await c.query('DROP TABLE schema_version');
    });
    const lookalike = join(folder, 'lookalike.pgdump');
    expect(db({ DATABASE_URL: other }, 'backup', lookalike).status).toBe(0);
    // This service's own dump, marked by a newer release.
    const { primary: newer } = await databaseFromSqlite(await createDatabase());
    await withClient(newer, (c) => c.query('INSERT INTO schema_version (version) VALUES ($1)', [SCHEMA_VERSION + 1]));
    const fromNewer = join(folder, 'newer.pgdump');
    expect(db({ DATABASE_URL: newer }, 'backup', fromNewer).status).toBe(0);
    const notADump = join(folder, 'notes.pgdump');
    writeFileSync(notADump, 'not a dump');

    for (const [file, reason] of [
      [lookalike, /not one of this service/],
      [fromNewer, new RegExp(`schema version ${SCHEMA_VERSION + 1}.*newer`)],
      [notADump, /not a pg_dump archive/],
    ] as const) {
      const r = db({ DATABASE_URL: primary }, 'restore', file);
      expect(r.status, r.out).toBe(1);
      expect(r.out).toMatch(reason);
      expect(r.out).not.toMatch(/\n {4}at /);
    }
    expect(await state(primary)).toEqual(before);
  });
});

async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('not within 10 s');
}
