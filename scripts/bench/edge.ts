// `npm run bench -- --edge [--duration S]`: live pages through the edge (issue 20). On each backend: a sidecar over
// 2,000 profiles, Varnish with the project's VCL in front of it, and the purger following the change log. Random
// cached profiles through the edge against nginx serving static bytes in the same run; the same with a writer
// editing 10 random profiles a second (hit ratio and origin requests from varnishstat); the time from a commit to
// the page through the edge; the purger's memory. Writes docs/benchmarks/edge.md.
import { UNLIMITED_CLIENT } from '../front-config.ts';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeRecord } from './records.ts';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../sidecar/config.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { runEdge } from '../edge.ts';
import { ensureBuildSync, projectRoot } from '../ensure-build.ts';
import { baseEnv, LOAD_GENERATOR_ENV, scratch, startStaticNginx } from './harness.ts';
import { cleanEnv, freePort, spawnSidecar } from '../sidecar-process.ts';
import { commitToPage, postgresBackend, randomScript, sqliteBackend, writer, type Backend } from './data-tier.ts';
import { fmt, median, percentile } from './numbers.ts';
import { wrk, type WrkResult } from './wrk.ts';

const PROFILES = 2000;
const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

/** Varnish's own counters (varnishstat), for hit ratio and origin traffic; `hitGrace`: stale copies served. */
export function varnishCounters(
  workdir: string,
): Record<'hit' | 'hitGrace' | 'miss' | 'backend' | 'client' | 'failed' | 'unhealthy', number> {
  const out = spawnSync('varnishstat', ['-n', workdir, '-1', '-j'], { encoding: 'utf8' });
  const json = JSON.parse(out.stdout) as { counters?: Record<string, { value: number }> } & Record<
    string,
    { value: number }
  >;
  const counters = json.counters ?? json;
  const v = (name: string) => counters[name]?.value ?? 0;
  return {
    hit: v('MAIN.cache_hit'),
    hitGrace: v('MAIN.cache_hit_grace'),
    miss: v('MAIN.cache_miss'),
    backend: v('MAIN.backend_req'),
    client: v('MAIN.client_req'),
    failed: v('MAIN.fetch_failed'),
    unhealthy: v('MAIN.backend_unhealthy'),
  };
}

/** Alternating runs of the edge and of nginx: the machine's speed drifts by a fifth between runs a minute apart. */
const PAIRS = 5;

interface EdgeResult {
  backend: string;
  /** The quiet run whose rate is the median of the pairs. */
  quiet: WrkResult;
  /** nginx's static rate in each pair, and each pair's ratio of edge to nginx. */
  nginx: number[];
  ratios: number[];
  withWriter: WrkResult;
  edits: number;
  hitRatio: number;
  originPer1000: number;
  commit: number[];
  purgerRssMb: number;
}

async function measure(
  backend: Backend,
  seconds: number,
  scratch: string,
  staticRun: () => Promise<WrkResult | undefined>,
): Promise<EdgeResult> {
  const { env, write, close } = await backend.prepare(PROFILES);
  const children: ChildProcess[] = [];
  try {
    const sidecar = await spawnSidecar(
      { ...env, ...LOAD_GENERATOR_ENV, LOG_LEVEL: 'warn', TRUST_PROXY: '127.0.0.1' },
      { discardOutput: true },
    );
    children.push(sidecar.child);
    const prefix = join(scratch, `edge-${Math.random().toString(36).slice(2)}`);
    const dist = join(projectRoot, 'dist', 'client');
    const edge = await runEdge({
      listen: `127.0.0.1:${await freePort()}`,
      backend: sidecar.address,
      prefix,
      dist,
      headers: securityHeaders(loadConfig({}), buildStyleHashes(join(dist, '..'))),
      // The load comes from one address: what is measured is what the edge serves, not what it refuses one client.
      clientShare: UNLIMITED_CLIENT,
    });
    children.push(edge.varnish);
    const purger = spawn(process.execPath, [join(projectRoot, 'scripts/purger.ts')], {
      env: cleanEnv({ ...env, PURGE_URLS: edge.url }),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(purger);
    let purgerLog = '';
    purger.stdout?.on('data', (d: Buffer) => (purgerLog += d));
    // Its first purge (everything live), sent twice like every purge: the warm-up must come after both.
    for (let i = 0; i < 200 && (purgerLog.match(/"msg":"purged"/g) ?? []).length < 2; i++)
      await new Promise((r) => setTimeout(r, 50));
    // Every profile once through the edge: the rows below measure cached pages.
    for (let i = 1; i <= PROFILES; i++) await (await fetch(`${edge.url}/p/bench-${i}`)).arrayBuffer();
    const script = randomScript(PROFILES);
    await wrk(edge.url + '/', { connections: 50, seconds: 2, script }, scratch);
    const quiets: WrkResult[] = [];
    const nginx: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      quiets.push(await wrk(edge.url + '/', { connections: 50, seconds, script }, scratch));
      const baseline = await staticRun();
      if (baseline) nginx.push(baseline.rps);
    }
    const quiet = quiets.find((q) => q.rps === median(quiets.map((x) => x.rps)))!;
    const before = varnishCounters(join(prefix, 'varnish'));
    const editing = writer(write, PROFILES, 10);
    const withWriter = await wrk(edge.url + '/', { connections: 50, seconds, script }, scratch);
    editing.stop();
    const after = varnishCounters(join(prefix, 'varnish'));
    console.log(`varnish: fetch failed ${after.failed}, backend unhealthy ${after.unhealthy}`);
    const hits = after.hit - before.hit;
    const misses = after.miss - before.miss;
    const commit = await commitToPage({ url: edge.url }, write, PROFILES, 30);
    console.log(
      `commit → page (ms): ${commit
        .map((t) => Math.round(t))
        .sort((a, b) => a - b)
        .join(' ')}`,
    );
    return {
      backend: backend.name,
      quiet,
      nginx,
      ratios: nginx.map((n, i) => quiets[i]!.rps / n),
      withWriter,
      edits: editing.edits(),
      hitRatio: hits / (hits + misses),
      originPer1000: ((after.backend - before.backend) / Math.max(1, after.client - before.client)) * 1000,
      commit,
      purgerRssMb: rss(purger.pid ?? 0),
    };
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await close();
  }
}

export async function edgeBench(options: {
  seconds: number;
  scratch: string;
  staticRun: () => Promise<WrkResult | undefined>;
  nginxVersion?: string | undefined;
}): Promise<void> {
  const { seconds, scratch } = options;
  const results: EdgeResult[] = [];
  const pgBackend = await postgresBackend();
  try {
    for (const backend of [sqliteBackend(scratch), pgBackend]) {
      console.log(`Edge on ${backend.name}…`);
      results.push(await measure(backend, seconds, scratch, options.staticRun));
    }
  } finally {
    await pgBackend.stop();
  }
  const varnish = spawnSync('varnishd', ['-V'], { encoding: 'utf8' }).stderr.split('\n')[0] ?? 'varnishd';
  const lines = [
    '# The edge',
    '',
    `Produced by \`npm run bench -- --edge --duration ${seconds}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, ${varnish}, ${options.nginxVersion ?? 'nginx'}, wrk -t2 -c50 -d${seconds}s. On each backend one sidecar over ${fmt(PROFILES)} profiles, Varnish (deploy/edge.vcl) in front of it, and the purger (\`npm run purger\`) following the change log; everything on loopback, sharing the cores. The quiet rate is measured ${PAIRS} times, each run followed by nginx (one worker) serving an article's static bytes with the same headers: the rates are the medians, the ratio the median of the ${PAIRS} pairs' ratios (the machine's speed drifts between runs a minute apart).`,
    '',
    '| Backend | Random cached profiles through the edge (req/s) | p99 ms | nginx, static bytes, same run (req/s) | Ratio (goal ≥ 0.9; each pair) | With a writer, 10 edits/s (req/s) | Against quiet (goal ≥ 0.9) | Hit ratio (goal ≥ 99%) | Origin requests per 1,000 | Commit → page through the edge p50 / p99 ms (goal p99 ≤ 1,000) | Purger RSS (MB) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.backend} | ${fmt(r.quiet.rps)} | ${fmt(r.quiet.p99, 2)} | ${r.nginx.length > 0 ? fmt(median(r.nginx)) : 'n/a'} | ${r.ratios.length > 0 ? `${fmt(median(r.ratios), 2)}× (${r.ratios.map((x) => fmt(x, 2)).join(', ')})` : ''} | ${fmt(r.withWriter.rps)} | ${fmt(r.withWriter.rps / r.quiet.rps, 2)}× | ${fmt(r.hitRatio * 100, 2)}% | ${fmt(r.originPer1000, 1)} | ${fmt(percentile(r.commit, 50))} / ${fmt(percentile(r.commit, 99))} | ${fmt(r.purgerRssMb)} |`,
    ),
    '',
    `Errors: ${results.map((r) => `${r.backend}: ${r.quiet.non2xx3xx + r.withWriter.non2xx3xx} non-2xx/3xx, ${r.quiet.socketErrors + r.withWriter.socketErrors} socket errors`).join('; ')}.`,
    '',
    'Reading the SQLite row: the writer commits into the file in rollback-journal mode (the server opens it read-only, so not WAL); a sidecar that finds the file locked by a commit waits it out on a timer, without blocking, for up to two seconds (README, "Faults"), so a slow commit delays the misses of that moment instead of failing them.',
    '',
  ];
  writeRecord('edge.md', lines.join('\n'));
  console.log('\n' + lines.join('\n'));
}

/** `npm run bench -- --edge`: nginx serving an article's bytes as the yardstick, then the edge on both backends. */
export async function edgeMode(seconds: number): Promise<void> {
  const config = loadConfig({});
  ensureBuildSync(config, baseEnv({}));
  const nginx = await startStaticNginx(join(projectRoot, 'dist/client'), config);
  const article = '/en/blog/qr-or-nfc-business-card';
  if (nginx) await wrk(nginx.url + article, { seconds: 2 }, scratch);
  await edgeBench({
    seconds,
    scratch,
    nginxVersion: nginx?.version,
    staticRun: async () => (nginx ? wrk(nginx.url + article, { seconds }, scratch) : undefined),
  });
}
