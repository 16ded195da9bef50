// "The database reaches each sidecar", shape 3, as docs/operations.md prints it (issue 61): a primary and a hot standby
// made from Debian's packages by the guide's block, run as printed on one machine (each cluster named and given a port
// of this run's own, the primary's address loopback), then a sidecar reading the standby with the read-only role, and
// an import on the primary reaching it.
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/sidecar-process.ts';
import { cleanEnv } from '../helpers/env.ts';
import { guideBlock, runGuideBlock } from '../helpers/guide.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';

const primary = `biop${process.pid}`;
const standby = `bios${process.pid}`;
let ports: { primary: number; standby: number };

afterAll(() => {
  for (const cluster of [standby, primary]) spawnSync('pg_dropcluster', ['--stop', '15', cluster], { stdio: 'ignore' });
});

beforeAll(async () => {
  ports = { primary: await freePort(), standby: await freePort() };
  const block = guideBlock(/pg_basebackup -h primary\.internal/);
  const [first, second] = block.split(/\n(?=# each standby)/);
  // The primary's part: its cluster, its port (psql's too: PGPORT), loopback for the standby's address.
  runGuideBlock(
    first!,
    [
      ['pg_createcluster 15 main --start', `pg_createcluster 15 ${primary} -p ${ports.primary} --start`],
      ['/etc/postgresql/15/main/', `/etc/postgresql/15/${primary}/`],
      ['pg_ctlcluster 15 main restart', `pg_ctlcluster 15 ${primary} restart`],
      ['10.0.0.0/8', '127.0.0.1/32'],
      ['127.0.0.1:5432/bio', `127.0.0.1:${ports.primary}/bio`],
    ],
    cleanEnv({ PGPORT: String(ports.primary) }),
  );
  // The standby's, on the same machine: a cluster of its own, the primary on loopback.
  runGuideBlock(
    second!,
    [
      ['pg_createcluster 15 main', `pg_createcluster 15 ${standby} -p ${ports.standby}`],
      ['/var/lib/postgresql/15/main', `/var/lib/postgresql/15/${standby}`],
      ['-h primary.internal -p 5432', `-h 127.0.0.1 -p ${ports.primary}`],
      ['pg_ctlcluster 15 main start', `pg_ctlcluster 15 ${standby} start`],
    ],
    cleanEnv({}),
  );
}, 180_000);

describe("the guide's primary and standby (shape 3)", () => {
  it('makes a standby in recovery that a sidecar reads with the read-only role, and an import reaches it', async () => {
    const psql = (port: number, sql: string) =>
      execFileSync('runuser', ['-u', 'postgres', '--', 'psql', '-p', String(port), '-d', 'bio', '-tAc', sql], {
        encoding: 'utf8',
      }).trim();
    expect(psql(ports.standby, 'SELECT pg_is_in_recovery()')).toBe('t');
    // An import on the primary, as writers do.
    const seeded = spawnSync('npm', ['run', 'db', '--', 'seed-demo'], {
      env: cleanEnv({ DATABASE_URL: `postgres://postgres:superuser-secret@127.0.0.1:${ports.primary}/bio` }),
      encoding: 'utf8',
    });
    expect(seeded.status, seeded.stderr).toBe(0);
    // A sidecar on the standby, with the role and the password the guide set.
    const sidecar = await spawnTestSidecar({
      DATABASE_URL: `postgres://bio_reader:reader-secret@127.0.0.1:${ports.standby}/bio`,
    });
    try {
      let page: Response | undefined;
      for (let i = 0; i < 100 && page?.status !== 200; i++) {
        page = await fetch(`${sidecar.url}/p/layla`);
        if (page.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(page?.status).toBe(200);
      expect(await page!.text()).toContain('ليلى الأحمد');
      expect((await fetch(`${sidecar.url}/health`)).status).toBe(200);
    } finally {
      sidecar.child.kill('SIGKILL');
    }
    // The role reads and writes nothing.
    const write = spawnSync(
      'psql',
      [
        `postgres://bio_reader:reader-secret@127.0.0.1:${ports.primary}/bio`,
        '-c',
        "DELETE FROM profiles WHERE slug = 'layla'",
      ],
      { encoding: 'utf8' },
    );
    expect(write.status).not.toBe(0);
  }, 120_000);
});
