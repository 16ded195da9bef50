// Backups and restores (#50), as the operations guide gives them: `npm run db -- backup FILE` while a server reads and
// a writer writes, then `restore FILE` puts that moment back, owners' images included, on SQLite (under a running
// server, which follows the file replaced) and on PostgreSQL (restored into the primary, served from the standby). A
// file that is not a backup is refused and changes nothing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
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
      expect(r.out).toMatch(/cannot be restored|there is no file/);
    }
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

async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('not within 10 s');
}
