// What another writer may store (issue 60): a value far longer than any import writes, or one that is not what its
// column holds. The read takes no more of a value than the import could have written (SQL cuts it), so the value costs
// no more than the largest valid one; a value that does not fit is a corrupt row: logged at error naming the row and
// the column, answered 500 on both backends, never read as the database being down, and the process lives. Before
// this suite, a 100 MB list of phones on a card ran the sidecar out of its heap at the first read, and again after
// each restart; on PostgreSQL a corrupt row was answered 503 "store unavailable" with Retry-After.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SidecarProcess } from '../../scripts/sidecar-process.ts';
import { createDatabase } from '../helpers/database.ts';
import { databaseFromSqlite } from '../helpers/postgres.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';

/** A JSON list of phones of about 100 MB. */
const hugePhones = () => `[${'"+966500000000",'.repeat(6_300_000)}"+966500000001"]`;

describe.each(['sqlite', 'postgres'] as const)('values another writer stored, on %s', (backend) => {
  let sidecar: SidecarProcess;
  let exited: string | undefined;

  beforeAll(async () => {
    const path = await createDatabase();
    const db = new Database(path);
    db.prepare("UPDATE cards SET phones = ? WHERE card_id = 'n0rth1'").run(hugePhones());
    db.prepare("UPDATE profiles SET theme = 'not json' WHERE slug = 'sam-rivera'").run();
    db.close();
    const env =
      backend === 'sqlite' ? { DATABASE_PATH: path } : { DATABASE_URL: (await databaseFromSqlite(path)).standby };
    sidecar = await spawnTestSidecar(env);
    sidecar.child.once('exit', (code, signal) => (exited = `${code ?? signal}: ${sidecar.output().slice(-600)}`));
  }, 60_000);
  afterAll(() => void sidecar?.child.kill('SIGKILL'));
  /** The lines the sidecar logged that name `what`. */
  const logLines = (what: string) =>
    sidecar
      .output()
      .split('\n')
      .filter((line) => line.includes(what));

  it('a list of 100 MB on a card: 500 at every read, logged naming the row and the column, and the process lives', async () => {
    for (const path of ['/c/n0rth1', '/c/n0rth1.vcf', '/c/n0rth1']) {
      const res = await fetch(sidecar.url + path);
      await res.arrayBuffer();
      expect({ path, status: res.status }).toEqual({ path, status: 500 });
    }
    expect(exited).toBeUndefined();
    expect((await fetch(sidecar.url + '/health')).status).toBe(200);
    expect((await fetch(sidecar.url + '/c/k7f2q9')).status).toBe(200);
    const logged = logLines('cards.phones of card n0rth1');
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.every((line) => (JSON.parse(line) as { level: number }).level === 50)).toBe(true);
    // The log line holds the value's first characters at most, not the value.
    expect(Math.max(...logged.map((line) => line.length))).toBeLessThan(10_000);
  });

  it('a theme that is not JSON: 500 with no Retry-After, logged at error, and the database is not called down', async () => {
    const res = await fetch(sidecar.url + '/p/sam-rivera');
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBeNull();
    expect((await fetch(sidecar.url + '/health')).status).toBe(200);
    expect((await fetch(sidecar.url + '/p/layla')).status).toBe(200);
    const logged = logLines('profiles.theme of profile sam-rivera');
    expect(logged.map((line) => (JSON.parse(line) as { level: number }).level)).toContain(50);
    expect(sidecar.output()).not.toContain('store unavailable');
  });
});
