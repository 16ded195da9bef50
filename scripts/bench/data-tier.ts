// `npm run bench -- --data-tier [--duration S] [--million]`: the data tier on both backends (issue 11). For each,
// sidecar processes read the database (SQLite: the file; PostgreSQL: a streaming standby, with the read-only role)
// filled by the bulk path, and the bench measures: cached profiles with and without a writer editing 10 random
// profiles a second (the ratio is the point: one owner's edit must cost no other owner's page), random profiles
// mostly uncached, the time from a commit to the page on the sidecar, memory, and the sitemap. Writes
// docs/benchmarks/data-tier.md. Ratios are against a baseline measured in the same run.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { writeRecord } from './records.ts';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { projectRoot } from '../ensure-build.ts';
import { startCluster, type Cluster } from '../postgres-cluster.ts';
import { spawnSidecar, type SidecarProcess } from '../sidecar-process.ts';
import { LOAD_GENERATOR_ENV } from './harness.ts';
import { openWriter } from '../../sidecar/store/writer.ts';
import { bulkPostgres, bulkSqlite } from './bulk-data.ts';
import { fmt, percentile } from './numbers.ts';
import { wrk, type WrkResult } from './wrk.ts';

export interface DataTierOptions {
  seconds: number;
  sizes: number[];
  scratch: string;
}

export interface Backend {
  name: string;
  /**
   * Makes a database of `profiles` (and what `data`, an import file's JSON, holds besides) and returns the sidecar's
   * environment and a writer's SQL runner.
   */
  prepare(
    profiles: number,
    data?: unknown,
  ): Promise<{
    env: Record<string, string>;
    write: (sql: string, values: unknown[]) => Promise<void>;
    close: () => Promise<void>;
  }>;
  stop(): Promise<void>;
}

/** An import through the one writer, as the CLI runs it (images named relative to the demo data's file); throws with
 * every problem. */
async function importInto(target: { databasePath: string; databaseUrl?: string }, data: unknown): Promise<void> {
  const writer = await openWriter(target);
  try {
    const outcome = await writer.importData(data, { from: join(projectRoot, 'scripts/demo-data.json') });
    if (!outcome.ok) throw new Error(outcome.errors.join('\n'));
  } finally {
    await writer.close();
  }
}

const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
export const randomScript = (n: number) =>
  `request = function() return wrk.format("GET", "/p/bench-" .. math.random(1, ${n})) end\n`;

export function sqliteBackend(scratch: string): Backend {
  return {
    name: 'SQLite (embedded file)',
    prepare: async (profiles, data) => {
      const path = join(mkdtempSync(join(scratch, 'sqlite-')), 'bio.db');
      bulkSqlite(path, profiles);
      if (data) await importInto({ databasePath: path }, data);
      const db = new Database(path, { timeout: 5000 });
      return {
        env: { DATABASE_PATH: path },
        write: async (sql, values) => void db.prepare(sql.replace(/\$\d+/g, '?')).run(...values),
        close: async () => void db.close(),
      };
    },
    stop: async () => undefined,
  };
}

export async function postgresBackend(): Promise<Backend & { primaryUrl: (database: string) => string }> {
  const cluster: Cluster = await startCluster();
  let n = 0;
  return {
    name: 'PostgreSQL (sidecar reads a streaming standby)',
    prepare: async (profiles, data) => {
      const name = `bench_${++n}`;
      const admin = new pg.Client({ connectionString: cluster.primary.url('postgres') });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      await bulkPostgres(cluster.primary.url(name), profiles);
      if (data) await importInto({ databasePath: '', databaseUrl: cluster.primary.url(name) }, data);
      const primary = new pg.Client({ connectionString: cluster.primary.url(name) });
      await primary.connect();
      await primary.query(readFileSync(join(projectRoot, 'deploy/postgres-roles.sql'), 'utf8'));
      // Until the standby has it all.
      const lsn = (await primary.query<{ l: string }>('SELECT pg_current_wal_lsn() AS l')).rows[0]!.l;
      const standby = new pg.Client({ connectionString: cluster.standby.url('postgres') });
      await standby.connect();
      while (
        !(await standby.query<{ d: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS d', [lsn])).rows[0]?.d
      )
        await new Promise((r) => setTimeout(r, 100));
      await standby.end();
      return {
        env: { DATABASE_URL: cluster.standby.url(name, 'bio_reader') },
        write: async (sql, values) => void (await primary.query(sql, values)),
        close: () => primary.end(),
      };
    },
    stop: async () => cluster.stop(),
    primaryUrl: (database) => cluster.primary.url(database),
  };
}

/** Edits `perSecond` random profiles out of `profiles` every second until stopped. */
export function writer(write: (sql: string, values: unknown[]) => Promise<void>, profiles: number, perSecond: number) {
  let edits = 0;
  const timer = setInterval(() => {
    void write('UPDATE profiles SET bio = $1 WHERE slug = $2', [
      `Edited ${++edits}`,
      `bench-${1 + Math.floor(Math.random() * profiles)}`,
    ]);
  }, 1000 / perSecond);
  return { stop: () => clearInterval(timer), edits: () => edits };
}

/** Time from a commit on the writer's side to the first response of the sidecar showing it, `samples` times. */
export async function commitToPage(
  sidecar: Pick<SidecarProcess, 'url'>,
  write: (sql: string, values: unknown[]) => Promise<void>,
  profiles: number,
  samples: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const slug = `bench-${1 + Math.floor(Math.random() * profiles)}`;
    await fetch(`${sidecar.url}/p/${slug}`).then((r) => r.arrayBuffer());
    const marker = `marker-${i}-${Date.now()}`;
    await write('UPDATE profiles SET bio = $1 WHERE slug = $2', [marker, slug]);
    const committed = performance.now();
    for (;;) {
      const text = await (await fetch(`${sidecar.url}/p/${slug}`)).text();
      if (text.includes(marker)) break;
      if (performance.now() - committed > 10_000)
        throw new Error(`the page of ${slug} did not show a commit within 10 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
    times.push(performance.now() - committed);
  }
  return times;
}

interface Result {
  backend: string;
  profiles: number;
  cached: WrkResult;
  cachedWithWriter: WrkResult;
  edits: number;
  random: WrkResult;
  commit: number[];
  rssMb: number;
  sitemapMs: number;
  sitemapParts: number;
  partMs: number;
}

async function measure(backend: Backend, profiles: number, options: DataTierOptions): Promise<Result> {
  const db = await backend.prepare(profiles);
  const sidecar = await spawnSidecar({ ...db.env, ...LOAD_GENERATOR_ENV }, { discardOutput: true });
  try {
    const hot = Math.min(profiles, 2000);
    // Every hot profile cached first.
    for (let i = 1; i <= hot; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, hot - i + 1) }, (_, k) =>
          fetch(`${sidecar.url}/p/bench-${i + k}`).then((r) => r.arrayBuffer()),
        ),
      );
    const run = (n: number) =>
      wrk(sidecar.url + '/', { connections: 50, seconds: options.seconds, script: randomScript(n) }, options.scratch);
    const cached = await run(hot);
    const w = writer(db.write, profiles, 10);
    const cachedWithWriter = await run(hot);
    w.stop();
    const random = await run(profiles);
    const commit = await commitToPage(sidecar, db.write, profiles, 40);
    let t = performance.now();
    const index = await (await fetch(sidecar.url + '/sitemap.xml')).text();
    const sitemapMs = performance.now() - t;
    const parts = (index.match(/<sitemap>/g) ?? []).length;
    t = performance.now();
    if (parts > 0) await (await fetch(sidecar.url + '/sitemaps/2.xml')).arrayBuffer();
    const partMs = parts > 0 ? performance.now() - t : NaN;
    return {
      backend: backend.name,
      profiles,
      cached,
      cachedWithWriter,
      edits: w.edits(),
      random,
      commit,
      rssMb: rss(sidecar.child.pid ?? 0),
      sitemapMs,
      sitemapParts: parts,
      partMs,
    };
  } finally {
    sidecar.child.kill('SIGKILL');
    await db.close();
  }
}

export async function dataTierBench(options: DataTierOptions): Promise<void> {
  const results: Result[] = [];
  const backends = [sqliteBackend(options.scratch), await postgresBackend()];
  try {
    for (const backend of backends) {
      for (const size of options.sizes) {
        console.log(`${backend.name}, ${fmt(size)} profiles…`);
        results.push(await measure(backend, size, options));
      }
    }
  } finally {
    for (const backend of backends) await backend.stop();
  }
  const lines = [
    '# Benchmarks: the data tier',
    '',
    `Written by \`npm run bench -- --data-tier${options.sizes.includes(1_000_000) ? ' --million' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${fmt(totalmem() / 2 ** 30)} GiB, ${options.seconds} s per wrk run at 50 connections, Node ${process.versions.node}. One sidecar process per database with its defaults (live cache 5,000 pages; CHANGE_POLL_MS 0 for SQLite, 250 for PostgreSQL); the database and the load generator share the machine's cores.`,
    '',
    '| Backend | Profiles | Cached profiles req/s (p99 ms) | Same, a writer editing 10 random profiles/s (p99 ms) | Ratio (goal ≥ 0.8) | Random profiles, mostly uncached, req/s (p99 ms) | Commit → page p50 / p99 ms (goal p99 ≤ 1,000) | Sidecar RSS MB | /sitemap.xml ms | One part ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.backend} | ${fmt(r.profiles)} | ${fmt(r.cached.rps)} (${fmt(r.cached.p99, 1)}) | ${fmt(r.cachedWithWriter.rps)} (${fmt(r.cachedWithWriter.p99, 1)}), ${fmt(r.edits)} edits | ${fmt(r.cachedWithWriter.rps / r.cached.rps, 2)}× | ${fmt(r.random.rps)} (${fmt(r.random.p99, 1)}) | ${fmt(percentile(r.commit, 50), 1)} / ${fmt(percentile(r.commit, 99), 1)} | ${fmt(r.rssMb)} | ${fmt(r.sitemapMs)}${r.sitemapParts ? ` (index of ${r.sitemapParts})` : ''} | ${fmt(r.partMs)} |`,
    ),
    '',
    'Cached profiles: random among the first 2,000, all cached before the run. The writer edits random profiles among all of them, ten a second, through the database (plain SQL, as the owner app would); before per-entity freshness every edit emptied the whole cache (measured from outside at 0.08×).',
    '',
  ];
  writeRecord('data-tier.md', lines.join('\n'));
  console.log(lines.join('\n'));
  rmSync(options.scratch, { recursive: true, force: true });
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const seconds = Number(args[args.indexOf('--duration') + 1] || 10) || 10;
  await dataTierBench({
    seconds,
    sizes: args.includes('--million') ? [2000, 100_000, 1_000_000] : [2000, 100_000],
    scratch: mkdtempSync(join(tmpdir(), 'bio-bench-data-')),
  });
  process.exit(0);
}
