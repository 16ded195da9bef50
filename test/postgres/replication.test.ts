// PostgreSQL beyond one machine (issue 11), on a primary and a streaming hot standby of this file's own (it stops
// and starts them): sidecars read the standby with the read-only role; what is written on the primary, by the CLI
// or by plain SQL, shows on every sidecar; one owner's edit costs no other owner's page; the standby going away,
// or falling behind, degrades health and live routes, and they recover by themselves.
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { Agent, get } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, openServices } from '../../sidecar/app.ts';
import { startCluster, type Cluster } from '../../scripts/postgres-cluster.ts';
import { DelayProxy } from '../../scripts/regions/delay-proxy.ts';
import { runEdge } from '../../scripts/edge.ts';
import { UNLIMITED_CLIENT } from '../../scripts/front-config.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { startReaders } from '../helpers/readers.ts';
import { cleanEnv, freePort } from '../../scripts/sidecar-process.ts';
import { demoData } from '../helpers/database.ts';
import { clientDir, distDir, projectRoot, testConfig } from '../helpers/env.ts';
import { POSTGRES_CHANGE_POLL_MS, withClient } from '../helpers/postgres.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

let cluster: Cluster;
const DB = 'bio';

/** `npm run db -- …` against the primary, as an operator runs it. */
function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [join(projectRoot, 'scripts/db.ts'), ...args], {
    env: cleanEnv({ DATABASE_URL: cluster.primary.url(DB) }),
    encoding: 'utf8',
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

const primarySql = (text: string, values: unknown[] = []) =>
  withClient(cluster.primary.url(DB), (c) => c.query(text, values));

async function sidecar(config: Partial<typeof testConfig> = {}): Promise<{
  url: string;
  app: FastifyInstance;
  renders: () => number;
  waiting: () => number;
  services: Awaited<ReturnType<typeof openServices>>;
}> {
  const options = {
    config: {
      ...testConfig,
      databaseUrl: cluster.standby.url(DB, 'bio_reader'),
      changePollMs: POSTGRES_CHANGE_POLL_MS,
      maxReplicaLagMs: 30_000,
      ...config,
    },
    distDir,
  };
  const services = await openServices(options);
  const app = await buildApp({ ...options, services });
  return {
    url: await app.listen({ port: 0, host: '127.0.0.1' }),
    app,
    renders: () => services.live.renders,
    waiting: () => services.store.stats?.().poolWaiting ?? 0,
    services,
  };
}

/** Polls until `check` holds (replication and the sidecar's probe are asynchronous), at most `ms`. */
async function eventually(check: () => Promise<boolean>, ms = 8000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
const status = async (base: string, path: string) => (await fetch(base + path, { redirect: 'manual' })).status;
const text = async (base: string, path: string) => (await fetch(base + path)).text();
/** Varnish with the project's edge over `sidecars`, its probes seeing them up. */
async function edgeOver(sidecars: { url: string }[]): Promise<{ url: string; varnish: ChildProcess; prefix: string }> {
  const edge = await runEdge({
    listen: `127.0.0.1:${await freePort()}`,
    backend: sidecars.map((s) => new URL(s.url).host),
    dist: clientDir,
    headers: securityHeaders(testConfig, buildStyleHashes(distDir)),
    clientShare: UNLIMITED_CLIENT,
  });
  await eventually(async () => (await status(edge.url, '/health')) === 200);
  return edge;
}
/** Waits until the standby has replayed the edit of `slug`'s bio to `bio`. */
const standbyHas = (slug: string, bio: string) =>
  eventually(async () =>
    withClient(
      cluster.standby.url(DB),
      async (c) => (await c.query('SELECT bio FROM profiles WHERE slug = $1', [slug])).rows[0]?.bio === bio,
    ),
  );

beforeAll(async () => {
  cluster = await startCluster();
  await withClient(cluster.primary.url('postgres'), (c) => c.query(`CREATE DATABASE ${DB}`));
  const migrate = cli('migrate');
  expect(migrate.status, migrate.out).toBe(0);
  const seed = cli('seed-demo');
  expect(seed.status, seed.out).toBe(0);
  expect(seed.out).toContain('5 profiles, 4 cards, 2 aliases');
  await withClient(cluster.primary.url(DB), (c) =>
    c.query(readFileSync(join(projectRoot, 'deploy/postgres-roles.sql'), 'utf8')),
  );
});
afterAll(() => cluster?.stop());

describe('reading a standby', () => {
  let a: Awaited<ReturnType<typeof sidecar>>;
  let b: Awaited<ReturnType<typeof sidecar>>;
  beforeAll(async () => {
    a = await sidecar();
    b = await sidecar();
    await eventually(
      async () => (await status(a.url, '/p/layla')) === 200 && (await status(b.url, '/p/layla')) === 200,
    );
  });
  afterAll(async () => {
    await a.app.close();
    await b.app.close();
  });

  it('the read-only role cannot write, on the standby or the primary', async () => {
    for (const node of [cluster.standby, cluster.primary]) {
      await expect(
        withClient(node.url(DB, 'bio_reader'), (c) => c.query("UPDATE profiles SET bio = 'x'")),
      ).rejects.toThrow(/read-only|permission denied/);
    }
  });

  it('an import by the CLI on the primary shows on both sidecars', async () => {
    const file = join(temporaryFolder('bio-pg-import-'), 'import.json');
    writeFileSync(
      file,
      JSON.stringify({
        profiles: [{ slug: 'fresh-owner', name: 'Fresh Owner', lang: 'en', bio: 'Imported on the primary.' }],
      }),
    );
    const r = cli('import', file);
    expect(r.status, r.out).toBe(0);
    await eventually(
      async () =>
        (await text(a.url, '/p/fresh-owner')).includes('Imported on the primary.') &&
        (await text(b.url, '/p/fresh-owner')).includes('Imported on the primary.'),
    );
  });

  it('a write by plain SQL on the primary is seen, and an unrelated edit renders no other page again', async () => {
    for (const path of ['/p/layla', '/p/sam-rivera', '/c/k7f2q9', '/p/qahwat-alnakheel'])
      expect(await status(a.url, path)).toBe(200);
    const before = a.renders();
    await primarySql("UPDATE profiles SET bio = 'Edited by SQL' WHERE slug = 'qahwat-alnakheel'");
    await eventually(async () => (await text(a.url, '/p/qahwat-alnakheel')).includes('Edited by SQL'));
    for (const path of ['/p/layla', '/p/sam-rivera', '/c/k7f2q9']) await status(a.url, path);
    expect(a.renders()).toBe(before + 1);
    // A related edit (a link of layla's) evicts her page.
    await primarySql(
      "UPDATE links SET title = 'Edited link' WHERE profile_id = (SELECT id FROM profiles WHERE slug = 'layla') AND position = 0",
    );
    await eventually(async () => (await text(a.url, '/p/layla')).includes('Edited link'));
  });

  it('the primary stopped: reads go on from the standby', async () => {
    cluster.primary.stop();
    try {
      await new Promise((r) => setTimeout(r, 1500));
      expect(await status(a.url, '/health')).toBe(200);
      expect(await status(a.url, '/p/layla')).toBe(200);
      expect(await status(a.url, '/p/sam-rivera')).toBe(200);
    } finally {
      cluster.primary.start();
    }
  });

  it('the standby stopped: health and live routes 503 at once, static pages 200; started again: ok without a restart', async () => {
    cluster.standby.stop();
    try {
      await eventually(async () => (await status(a.url, '/health')) === 503);
      const health = await (await fetch(a.url + '/health')).json();
      expect(health.status).toBe('degraded');
      const started = Date.now();
      expect(await status(a.url, '/p/layla')).toBe(503);
      expect(await status(a.url, '/c/k7f2q9')).toBe(503);
      // At once: the answer did not wait for a connection timeout.
      expect(Date.now() - started).toBeLessThan(1500);
      expect(await status(a.url, '/')).toBe(200);
      expect(await status(a.url, '/en/blog')).toBe(200);
    } finally {
      cluster.standby.start();
    }
    await eventually(async () => (await status(a.url, '/health')) === 200);
    expect(await status(a.url, '/p/layla')).toBe(200);
  });
});

describe('told of each commit by the primary (issue 65: CHANGE_NOTIFY_URL)', () => {
  // Polling once a minute: only a notice can bring an edit within the bounds below.
  let told: Awaited<ReturnType<typeof sidecar>>;
  beforeAll(async () => {
    told = await sidecar({ changePollMs: 60_000, changeNotifyUrl: cluster.primary.url(DB, 'bio_reader') });
    await eventually(async () => (await status(told.url, '/p/sam-rivera')) === 200);
    await eventually(async () => told.services.notices?.listening === true);
  });
  afterAll(async () => told?.app.close());

  const edited = async (marker: string) => {
    await primarySql('UPDATE profiles SET bio = $1 WHERE slug = $2', [marker, 'sam-rivera']);
    await eventually(async () => (await text(told.url, '/p/sam-rivera')).includes(marker), 10_000);
  };

  it('a sidecar that polls once a minute serves an edit as soon as its standby has it, found by the notice', async () => {
    expect(await text(told.url, '/p/sam-rivera')).not.toContain('Told at once');
    await edited(`Told at once ${Date.now()}`);
    expect(told.services.freshness.found.notice).toBeGreaterThanOrEqual(1);
  });

  it('listens again when its connection to the primary is lost, and the next edit is told', async () => {
    const { rows } = await primarySql(
      "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = 'bio-change-notices'",
    );
    const listened = told.services.notices!.listens;
    expect(rows.length).toBeGreaterThanOrEqual(1);
    await eventually(async () => told.services.notices!.listens > listened, 10_000);
    const before = told.services.freshness.found.notice;
    await edited(`Told after the reconnection ${Date.now()}`);
    expect(told.services.freshness.found.notice).toBeGreaterThan(before);
  });

  it('a notice from another writer on the channel that is not one is ignored', async () => {
    const before = told.services.notices!.heard;
    await primarySql("NOTIFY bio_changes, 'not a notice'");
    await primarySql("NOTIFY bio_changes, '99999999999999999999 0/0'");
    await edited(`After junk on the channel ${Date.now()}`);
    expect(told.services.notices!.heard).toBe(before + 1);
  });
});

describe('the standby stopped behind the edge (issue 61): the site degrades, never darkens', () => {
  let sidecars: Awaited<ReturnType<typeof sidecar>>[];
  let edge: { url: string; varnish: ChildProcess; prefix: string };
  /** What the edge's probes say of its backends, as `varnishadm backend.list` prints it. */
  const backends = () =>
    execFileSync('varnishadm', ['-n', join(edge.prefix, 'varnish'), 'backend.list'], { encoding: 'utf8' });
  beforeAll(async () => {
    sidecars = [await sidecar({ trustProxy: '127.0.0.1' }), await sidecar({ trustProxy: '127.0.0.1' })];
    edge = await edgeOver(sidecars);
  });
  afterAll(async () => {
    edge?.varnish.kill('SIGKILL');
    for (const s of sidecars ?? []) await s.app.close();
  });

  it('static pages, discovery documents, twins and cached live pages 200 under load; the rest 503 with Retry-After', async () => {
    const cached = ['/p/layla', '/c/k7f2q9', '/p/layla.md'];
    for (const path of cached) expect(await status(edge.url, path)).toBe(200);
    cluster.standby.stop();
    try {
      // Every sidecar degraded, and the edge's probes of /health have seen it (4 of 5 failed).
      for (const s of sidecars) await eventually(async () => (await status(s.url, '/health')) === 503);
      await eventually(async () => {
        const origins = backends()
          .split('\n')
          .filter((line) => /\.origin_/.test(line));
        return origins.length === 2 && origins.every((line) => /\bsick\b/.test(line));
      }, 15_000);
      const readers = startReaders({
        count: 6,
        paths: ['/', '/en/blog', '/ar/blog', '/llms.txt', '/openapi.json', '/en/blog.md', '/robots.txt', ...cached],
        get: (path) => fetch(edge.url + path),
      });
      await readers.until(300);
      await readers.stop();
      expect(readers.failures).toEqual([]);
      // What needs the database and was never kept: the sidecar's own 503, with when to come back; /health says why.
      const uncached = await fetch(edge.url + '/p/sam-rivera');
      expect(uncached.status).toBe(503);
      expect(uncached.headers.get('retry-after')).toMatch(/^\d+$/);
      const health = await fetch(edge.url + '/health');
      expect(health.status).toBe(503);
      expect(((await health.json()) as { status: string }).status).toBe('degraded');
    } finally {
      cluster.standby.start();
    }
    await eventually(async () => (await status(edge.url, '/p/sam-rivera')) === 200, 15_000);
  });
});

describe('an edge fetch after a purge (issue 65): the sidecar reads the change log first', () => {
  // A sidecar polling once a minute, and no notices: only the edge's fetch can bring the edit within the test. The
  // region's purger found the edit on this same standby and purged; the sidecar has not learnt of it yet.
  let slow: Awaited<ReturnType<typeof sidecar>>;
  let edge: { url: string; varnish: ChildProcess; prefix: string };
  beforeAll(async () => {
    slow = await sidecar({ changePollMs: 60_000, trustProxy: '127.0.0.1' });
    edge = await edgeOver([slow]);
  });
  afterAll(async () => {
    edge?.varnish.kill('SIGKILL');
    await slow?.app.close();
  });

  it("the page the edge fetches after the purge is the new one, not the sidecar's cached old one", async () => {
    expect(await status(edge.url, '/p/layla')).toBe(200);
    const marker = `Fetched after the purge ${Date.now()}`;
    await primarySql("UPDATE profiles SET bio = $1 WHERE slug = 'layla'", [marker]);
    // The standby has it (what the purger saw before it purged).
    await standbyHas('layla', marker);
    // Asked directly, the sidecar answers from its cache: it polls once a minute.
    expect(await text(slow.url, '/p/layla')).not.toContain(marker);
    const purged = await fetch(edge.url + '/', { method: 'PURGE', headers: { 'xkey-purge': 'profile:layla' } });
    expect(purged.status).toBe(200);
    expect(await text(edge.url, '/p/layla')).toContain(marker);
  });

  it('an edge fetch does not take the answer of a read of the log that began before the edit was replayed', async () => {
    // The standby a long way off (half a second each way): a read of the log is under way for two round trips (the
    // probe's, then the log's last sequence). An edge's fetch (the test's own, from the trusted address) sets one off;
    // the edit is replayed after that read has looked at the log and before its answer is back; then the purge's fetch
    // comes. Joining the read under way, it was given the page as it was before the edit (the old code, every time).
    const trip = 500;
    const standby = new URL(cluster.standby.url(DB, 'bio_reader'));
    const link = await DelayProxy.start(
      { host: '127.0.0.1', port: 0 },
      { host: standby.hostname, port: Number(standby.port) },
      trip,
    );
    standby.port = String(link.listen.port);
    const far = await sidecar({ databaseUrl: standby.href, changePollMs: 60_000, trustProxy: '127.0.0.1' });
    const edgeFetch = async () =>
      (await fetch(far.url + '/p/northwind-studio', { headers: { 'x-edge-fetch': '1' } })).text();
    try {
      // The page in the sidecar's cache, its connections to the standby made; how long a fetch's read of the log takes.
      await eventually(async () => (await status(far.url, '/p/northwind-studio')) === 200, 20_000);
      await edgeFetch();
      const started = performance.now();
      await edgeFetch();
      const read = performance.now() - started;
      const marker = `Replayed while a read was under way ${Date.now()}`;
      const before = edgeFetch();
      // The read's last look reached the standby half a trip before its end; a little after, the edit. A machine slow
      // enough to move the edit out of that window has the new code and the old both pass, never the new one fail.
      await new Promise((r) => setTimeout(r, read - trip + trip / 4));
      await primarySql("UPDATE profiles SET bio = $1 WHERE slug = 'northwind-studio'", [marker]);
      await standbyHas('northwind-studio', marker);
      const after = edgeFetch();
      await before;
      expect(await after).toContain(marker);
    } finally {
      await far.app.close();
      await link.close();
    }
  }, 60_000);

  it('a client cannot make the sidecar read the log at each request by sending the header itself', async () => {
    const marker = `Not fetched by a client ${Date.now()}`;
    await primarySql("UPDATE profiles SET bio = $1 WHERE slug = 'sam-rivera'", [marker]);
    expect(await status(slow.url, '/p/sam-rivera')).toBe(200);
    await standbyHas('sam-rivera', marker);
    // From an address the sidecar does not trust as a proxy, the header is nobody's word.
    const direct = await sidecar({ changePollMs: 60_000 });
    try {
      expect(await text(direct.url, '/p/sam-rivera')).toContain(marker);
      await primarySql("UPDATE profiles SET bio = 'Changed again' WHERE slug = 'sam-rivera'");
      await standbyHas('sam-rivera', 'Changed again');
      const asked = await fetch(direct.url + '/p/sam-rivera', { headers: { 'x-edge-fetch': '1' } });
      expect(await asked.text()).toContain(marker);
    } finally {
      await direct.app.close();
    }
  });
});

describe('a standby that falls behind', () => {
  it('an idle primary is no lag: a standby with nothing to replay stays ok however long ago the last commit was', async () => {
    const idle = await sidecar({ maxReplicaLagMs: 300 });
    try {
      await primarySql("UPDATE profiles SET bio = 'Before a quiet spell' WHERE slug = 'sam-rivera'");
      await eventually(async () => (await text(idle.url, '/p/sam-rivera')).includes('Before a quiet spell'));
      // Several probes (one a second), each long after the last commit.
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, 1100));
        expect(await status(idle.url, '/health')).toBe(200);
      }
    } finally {
      await idle.app.close();
    }
  });

  it('degrades once its replay lag passes the limit while WAL is pending, and recovers when it catches up', async () => {
    const lagging = await sidecar({ maxReplicaLagMs: 300 });
    const superStandby = cluster.standby.url(DB);
    try {
      await eventually(async () => (await status(lagging.url, '/health')) === 200);
      // Streaming again after the tests above stopped the primary and the standby (the receiver retries every 5 s).
      await eventually(
        async () =>
          withClient(
            superStandby,
            async (c) =>
              (await c.query("SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming'")).rowCount === 1,
          ),
        15_000,
      );
      await withClient(superStandby, (c) => c.query('SELECT pg_wal_replay_pause()'));
      // Commits on the primary that the standby receives but does not replay.
      for (let i = 0; i < 6; i++) {
        await primarySql('UPDATE profiles SET bio = $1 WHERE slug = $2', [`tick ${i}`, 'sam-rivera']);
        await new Promise((r) => setTimeout(r, 250));
      }
      // The primary keeps committing while the standby waits: WAL stays pending, the lag grows.
      let tick = 6;
      await eventually(async () => {
        await primarySql('UPDATE profiles SET bio = $1 WHERE slug = $2', [`tick ${tick++}`, 'sam-rivera']);
        return (await status(lagging.url, '/health')) === 503;
      }, 15_000);
      expect(await status(lagging.url, '/p/sam-rivera')).toBe(503);
      await withClient(superStandby, (c) => c.query('SELECT pg_wal_replay_resume()'));
      await eventually(async () => (await status(lagging.url, '/health')) === 200);
      expect(await text(lagging.url, '/p/sam-rivera')).toContain(`tick ${tick - 1}`);
    } finally {
      await withClient(superStandby, (c) => c.query('SELECT pg_wal_replay_resume()')).catch(() => undefined);
      await lagging.app.close();
    }
  });
});

/** GET `path` from `localAddress` (a client of its own, 127/8) through `agent` (default: a connection of its own). */
function getFrom(base: string, path: string, localAddress: string, agent: Agent | false = false): Promise<number> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    get({ host: hostname, port, path, localAddress, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

describe('one client cannot fill the pool for others (issue 46)', () => {
  it("a reader's cached page and its new page do not wait behind a stranger's reads", async () => {
    // The standby across a network (3 ms each way: a page's read is a round trip, 6 ms), one connection, and the
    // change log checked on every request, so that the strangers' reads queue for the connection.
    const standby = new URL(cluster.standby.url(DB, 'bio_reader'));
    const link = await DelayProxy.start(
      { host: '127.0.0.1', port: 0 },
      { host: standby.hostname, port: Number(standby.port) },
      3,
    );
    standby.port = String(link.listen.port);
    const s = await sidecar({ databaseUrl: standby.href, pgPoolSize: 1, changePollMs: 0 });
    // The reader's two connections, open before the strangers come.
    const reader = new Agent({ keepAlive: true, maxSockets: 2 });
    try {
      await eventually(async () => (await getFrom(s.url, '/p/layla', '127.0.3.1')) === 200);
      const read = (path: string) => getFrom(s.url, path, '127.0.3.1', reader);
      expect(await Promise.all([read('/p/layla'), read('/p/layla')])).toEqual([200, 200]);
      // Strangers on four addresses ask six pages each that nobody has: each a read of the database, none cached.
      let answered = 0;
      const strangers = [1, 2, 3, 4].flatMap((n) =>
        Array.from({ length: 6 }, (_, i) =>
          getFrom(s.url, `/p/nobody-${n}-${i}`, `127.0.2.${n}`).then((code) => {
            answered++;
            return code;
          }),
        ),
      );
      for (let i = 0; i < 2000 && s.waiting() < 12; i++) await new Promise((r) => setTimeout(r, 1));
      // While twelve or more wait for the connection, the reader asks a cached page and a new one.
      const asked = answered;
      const [cached, fresh] = await Promise.all(
        ['/p/layla', '/p/nobody-reader'].map((path) => read(path).then((code) => ({ code, behind: answered - asked }))),
      );
      const codes = await Promise.all(strangers);
      expect({ cached: cached!.code, fresh: fresh!.code }).toEqual({ cached: 200, fresh: 404 });
      expect(codes.filter((code) => code !== 404)).toEqual([]);
      // How many of the strangers' answers came before the reader's. Before, the reader's reads (the change log's,
      // for the cached page) waited behind all of them: 24 and 24 of 24 in two runs. Now the cached page waits for
      // none of them, only its own trips (the probe, the change log), while the strangers' reads go on on the pool's
      // connection, a trip each since a page is read in one (0 in six runs when a read was five trips; up to 3 since),
      // and the new page for its turn among five lines (5 in six runs).
      expect({ cached: cached!.behind, fresh: fresh!.behind }).toEqual({
        cached: expect.toSatisfy((n: number) => n <= 6),
        fresh: expect.toSatisfy((n: number) => n <= 8),
      });
    } finally {
      reader.destroy();
      await s.app.close();
      await link.close();
    }
  });
});

describe('a database without the schema', () => {
  it('the server starts, says why in health, and never creates anything', async () => {
    await withClient(cluster.primary.url('postgres'), (c) => c.query('CREATE DATABASE empty'));
    await eventually(async () =>
      withClient(
        cluster.standby.url('postgres'),
        async (c) => (await c.query("SELECT 1 FROM pg_database WHERE datname = 'empty'")).rowCount === 1,
      ),
    );
    const app = await buildApp({
      config: { ...testConfig, databaseUrl: cluster.standby.url('empty'), changePollMs: POSTGRES_CHANGE_POLL_MS },
      distDir,
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const health = await fetch(url + '/health');
      expect(health.status).toBe(503);
      expect((await health.json()).status).toBe('degraded');
      expect(await status(url, '/p/layla')).toBe(503);
      expect(await status(url, '/')).toBe(200);
      const tables = await withClient(cluster.primary.url('empty'), (c) =>
        c.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"),
      );
      expect(tables.rows[0]?.n).toBe(0);
    } finally {
      await app.close();
    }
    expect(demoData).toBeTruthy();
  });
});
