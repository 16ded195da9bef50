// Three regions on one machine (issue 29), as an operator whose service outgrew one region would lay them out:
//
//   region 1 (127.0.1.x): the PostgreSQL primary (127.0.1.1)
//   region N (127.0.N.x): a hot standby (127.0.N.1) streaming from the primary through the link (127.0.N.2, a
//     delay proxy: one-way latency, can be cut), a sidecar reading that standby, a Varnish edge (127.0.N.3) running
//     deploy/edge.vcl in front of it, and a purger following the same standby and purging that edge.
//
// Every region, the primary's own included, reaches the primary through its link (20, 45 and 90 ms one way by
// default: 40, 90 and 180 ms round trips), so what an edit costs is measured, not assumed. The sidecars and purgers
// poll the change log every 100 ms (CHANGE_POLL_MS). `npm run regions` starts it all and prints where each part
// listens; the tests and `npm run bench -- --regions` start it through startRegions.
import { UNLIMITED_CLIENT } from '../front-config.ts';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../sidecar/config.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { runEdge } from '../edge.ts';
import { ensureBuild, projectRoot } from '../ensure-build.ts';
import { startPrimary, type Node } from '../postgres-cluster.ts';
import { cleanEnv, freePort, spawnSidecar, type SidecarProcess } from '../sidecar-process.ts';
import { DelayProxy } from './delay-proxy.ts';

/** One-way latency from each region to the primary, in ms: 40, 90 and 180 ms round trips. */
export const DEFAULT_DELAYS = [20, 45, 90] as const;
/** How often each region's sidecar and purger ask their standby's change log for news. */
const POLL_MS = '100';
const DATABASE = 'bio';

export interface Region {
  /** 1, 2, 3: its addresses are 127.0.{n}.x. */
  n: number;
  /** The link to the primary: its delay can be changed, and it can be cut and restored. */
  link: DelayProxy;
  standby: Node;
  sidecar: SidecarProcess;
  edge: { url: string; varnish: ChildProcess; prefix: string };
  purger: ChildProcess;
  /** What the purger printed so far (JSON lines). */
  purgerLog(): string;
}

export interface Regions {
  /** The node writes go to: region 1's primary, or the standby promoted in its place. */
  primary: Node;
  regions: Region[];
  /** Runs one statement on the primary (`$1` placeholders), as the owner app would. */
  write(sql: string, values?: unknown[]): Promise<void>;
  /**
   * The operations guide's procedure when the primary is lost: region `n`'s standby promoted, a slot made on it for
   * every other standby, and the name they reach the primary by (here, each region's link) pointed at it; they follow
   * its new timeline by themselves (recovery_target_timeline is `latest`), and the purgers, following their own
   * standby, need nothing. Writes then go to it. The old primary is stopped first (a fast shutdown, which hands
   * every standby what it had written).
   */
  promote(n: number): Promise<void>;
  stop(): Promise<void>;
}

export interface RegionsOptions {
  delays?: readonly number[];
  /** Fills the new database on the primary (migrated first); the demo data when absent. */
  fill?: (primaryUrl: string) => Promise<void>;
  /** Where each edge keeps its files. */
  scratch: string;
  /** Whether the sidecars and purgers are told of each commit by the primary (CHANGE_NOTIFY_URL); true unless false. */
  notices?: boolean;
}

/** Loads the demo data into the database at `url` with the project's one writer, as `npm run db -- seed-demo` does. */
export async function importDemo(url: string): Promise<void> {
  const seeded = spawnSync(process.execPath, [join(projectRoot, 'scripts/db.ts'), 'seed-demo'], {
    env: cleanEnv({ DATABASE_URL: url }),
    encoding: 'utf8',
  });
  if (seeded.status !== 0) throw new Error(`npm run db -- seed-demo failed: ${seeded.stdout}${seeded.stderr}`);
}

/** Waits until `standby` has replayed everything `primary` has written so far. */
async function caughtUp(primary: pg.Client, standby: Node): Promise<void> {
  const lsn = (await primary.query<{ l: string }>('SELECT pg_current_wal_insert_lsn() AS l')).rows[0]!.l;
  const client = new pg.Client({ connectionString: standby.url('postgres') });
  await client.connect();
  try {
    for (let i = 0; i < 600; i++) {
      // Within a page header of it: an idle primary's insert position may sit past a segment's header, where the
      // standby's replay, having nothing more to replay, stops.
      if (
        (
          await client.query<{ d: boolean }>(
            'SELECT pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn()) <= 40 AS d',
            [lsn],
          )
        ).rows[0]?.d
      )
        return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${standby.url('postgres')} did not catch up within 30 s`);
  } finally {
    await client.end();
  }
}

export async function startRegions(options: RegionsOptions): Promise<Regions> {
  const delays = options.delays ?? DEFAULT_DELAYS;
  const children: ChildProcess[] = [];
  const links: DelayProxy[] = [];
  const topology = await startPrimary({ host: '127.0.1.1' });
  const stopAll = async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const link of links) await link.close();
    topology.stop();
  };
  try {
    const admin = new pg.Client({ connectionString: topology.primary.url('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${DATABASE}`);
    await admin.end();
    const primaryUrl = topology.primary.url(DATABASE);
    await (options.fill ?? importDemo)(primaryUrl);
    let primary = new pg.Client({ connectionString: primaryUrl, application_name: 'owner-app' });
    await primary.connect();
    await primary.query(readFileSync(join(projectRoot, 'deploy/postgres-roles.sql'), 'utf8'));
    let writesTo = topology.primary;

    const dist = join(projectRoot, 'dist', 'client');
    const headers = securityHeaders(loadConfig({}), buildStyleHashes(join(dist, '..')));
    const regions: Region[] = [];
    for (const [i, delay] of delays.entries()) {
      const n = i + 1;
      const link = await DelayProxy.start(
        { host: `127.0.${n}.2`, port: 0 },
        { host: '127.0.1.1', port: topology.primary.port },
        delay,
      );
      links.push(link);
      const standby = await topology.addStandby(`region${n}`, { host: `127.0.${n}.1`, upstream: link.listen });
      await caughtUp(primary, standby);
      // Told of each commit by the primary, through the region's own link (issue 65), unless polling alone is asked.
      const primaryHere = new URL(topology.primary.url(DATABASE, 'bio_reader'));
      primaryHere.host = `${link.listen.host}:${link.listen.port}`;
      const env = {
        DATABASE_URL: standby.url(DATABASE, 'bio_reader'),
        CHANGE_POLL_MS: POLL_MS,
        ...(options.notices === false ? {} : { CHANGE_NOTIFY_URL: primaryHere.href }),
      };
      const sidecar = await spawnSidecar(
        { ...env, MCP_RATE_LIMIT: '1000000', TRUST_PROXY: '127.0.0.0/8' },
        { discardOutput: true },
      );
      children.push(sidecar.child);
      const prefix = join(options.scratch, `edge-region${n}`);
      const edge = await runEdge({
        listen: `127.0.${n}.3:${await freePort()}`,
        backend: sidecar.address,
        prefix,
        dist,
        headers,
        // The regions are measured from one address each: their freshness, not what an edge refuses one client.
        clientShare: UNLIMITED_CLIENT,
      });
      children.push(edge.varnish);
      let log = '';
      const purger = spawn(process.execPath, [join(projectRoot, 'scripts/purger.ts')], {
        env: cleanEnv({ ...env, PURGE_URLS: edge.url }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(purger);
      purger.stdout?.on('data', (d: Buffer) => (log += d));
      purger.stderr?.on('data', (d: Buffer) => (log += d));
      // Its first act is to forget every live page at its edge, sent twice like every purge.
      for (let k = 0; k < 200 && (log.match(/"msg":"purged"/g) ?? []).length < 2; k++)
        await new Promise((r) => setTimeout(r, 50));
      regions.push({ n, link, standby, sidecar, edge: { ...edge, prefix }, purger, purgerLog: () => log });
    }
    return {
      get primary() {
        return writesTo;
      },
      regions,
      write: async (sql, values = []) => void (await primary.query(sql, values)),
      promote: async (n) => {
        const next = regions[n - 1]!;
        await primary.end().catch(() => undefined);
        writesTo.stop('fast');
        const admin = new pg.Client({ connectionString: next.standby.url('postgres') });
        await admin.connect();
        try {
          await admin.query('SELECT pg_promote(true, 30)');
          for (const other of regions)
            if (other !== next)
              await admin.query('SELECT pg_create_physical_replication_slot($1)', [`region${other.n}`]);
        } finally {
          await admin.end();
        }
        for (const other of regions)
          if (other !== next) other.link.retarget({ host: `127.0.${next.n}.1`, port: next.standby.port });
        writesTo = next.standby;
        primary = new pg.Client({ connectionString: next.standby.url(DATABASE), application_name: 'owner-app' });
        await primary.connect();
      },
      stop: async () => {
        await primary.end().catch(() => undefined);
        await stopAll();
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

if (import.meta.main) {
  await ensureBuild(loadConfig({}));
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  console.log('Starting three regions on loopback (a primary, three standbys, sidecars, edges and purgers)…');
  const started = await startRegions({ scratch: mkdtempSync(join(tmpdir(), 'bio-regions-')) });
  console.log(`\nregion 1 primary  ${started.primary.url(DATABASE)}`);
  for (const r of started.regions) {
    console.log(
      `region ${r.n}  link ${r.link.listen.host}:${r.link.listen.port} (+${r.link.delay} ms each way)  standby ${r.standby.url(DATABASE, 'bio_reader')}  sidecar ${r.sidecar.url}  edge ${r.edge.url}`,
    );
  }
  console.log('\nOpen a page at any edge (for example /p/layla). Ctrl-C stops everything.');
  const stop = () => void started.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
