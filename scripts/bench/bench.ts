// `npm run bench`: the sidecar measured against baselines in the same run (nginx serving the same files, a bare
// Fastify route returning the same bytes), plus build time, memory and sitemap generation; writes BENCHMARKS.md.
// `npm run bench -- --soak [--duration S]`: load across every route; fails on any 5xx or socket error.
// `npm run bench -- --data-tier [--duration S] [--million]`: both database backends (scripts/bench/data-tier.ts).
// `npm run bench -- --compression [--duration S]`: the cached rows with and without Accept-Encoding, and the bytes saved.
// `npm run bench -- --edge [--duration S]`: live pages through Varnish and the purger, on both backends (scripts/bench/edge.ts).
// `npm run bench -- --lighthouse`: Lighthouse (mobile) in Debian's Chromium on every page kind (scripts/bench/lighthouse.ts).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuild, projectRoot } from '../ensure-build.ts';
import { loadConfig, type ServerConfig } from '../../sidecar/config.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { CACHE, type Lang } from '../../src/lib/surface.ts';
import { writeDatabase } from '../../sidecar/store/sqlite/sqlite-writer.ts';
import { dataTierBench } from './data-tier.ts';
import { cycleScript, wrk, type WrkResult } from './wrk.ts';
import { mcpInProcess } from './mcp-in-process.ts';
import { lighthouseBench } from './lighthouse.ts';
import { edgeBench } from './edge.ts';
import { buildBench, buildReport, searchDownload, type BuildBench } from './build.ts';
import { nginxBinary, runFront, runNginx } from '../front-config.ts';
import { cleanEnv, freePort, spawnSidecar } from '../sidecar-process.ts';

const { values: flags } = parseArgs({
  options: {
    soak: { type: 'boolean', default: false },
    duration: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'data-tier': { type: 'boolean', default: false },
    million: { type: 'boolean', default: false },
    mcp: { type: 'boolean', default: false },
    compression: { type: 'boolean', default: false },
    lighthouse: { type: 'boolean', default: false },
    edge: { type: 'boolean', default: false },
    build: { type: 'boolean', default: false },
    articles: { type: 'string' },
  },
});
const SECONDS = Number(flags.duration ?? (flags.soak ? 30 : flags.quick ? 3 : 10));
const scratch = mkdtempSync(join(tmpdir(), 'bio-bench-'));
const children: ChildProcess[] = [];
const cleanup = () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

const baseEnv = (extra: Record<string, string>) => cleanEnv({ LOG_LEVEL: 'warn', ...extra });
const port = freePort;

function waitFor(child: ChildProcess, text: string, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      if (out.includes(text)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}): ${out}`)));
  });
}

async function startSidecar(databasePath: string, extra: Record<string, string> = {}) {
  const sidecar = await spawnSidecar({ DATABASE_PATH: databasePath, MCP_RATE_LIMIT: '1000000', SHUTDOWN_DRAIN_MS: '0', ...extra }, { discardOutput: true });
  children.push(sidecar.child);
  return { url: sidecar.url, pid: sidecar.child.pid ?? 0, child: sidecar.child };
}

async function startNginx(root: string, config: ServerConfig) {
  const binary = nginxBinary();
  if (!binary) return undefined;
  const p = await port();
  const prefix = join(scratch, 'nginx');
  const url = `http://127.0.0.1:${p}`;
  // One worker, as the sidecar is one process. Markdown twins by a simple Accept match (no q-values): a baseline.
  const child = await runNginx(
    prefix,
    `worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  include /etc/nginx/mime.types;
  types { text/markdown md; }
  default_type application/octet-stream;
  client_body_temp_path ${prefix}/tmp/body;
  proxy_temp_path ${prefix}/tmp/proxy;
  fastcgi_temp_path ${prefix}/tmp/fastcgi;
  uwsgi_temp_path ${prefix}/tmp/uwsgi;
  scgi_temp_path ${prefix}/tmp/scgi;
  map $http_accept $twin { default ".html"; "~*text/markdown" ".md"; }
  server {
    listen 127.0.0.1:${p};
    root ${root};
    index index.html;
    location / {
      # The same headers as the sidecar's page responses, so that both send the same bytes (a location that adds
      # a header inherits none from its server block, so all are here).
${Object.entries(securityHeaders(config, buildStyleHashes(join(root, '..'))))
  .map(([name, value]) => `      add_header ${name} "${value}";`)
  .join('\n')}
      add_header Cache-Control "${CACHE.page}";
      add_header Vary Accept;
      try_files $uri$twin $uri $uri/ =404;
    }
  }
}
`,
    url,
  );
  children.push(child);
  // `nginx -v` writes its version to standard error.
  return { url, version: spawnSync(binary, ['-v'], { encoding: 'utf8' }).stderr.replace('nginx version: ', '').trim() || 'nginx' };
}

/** nginx filled from deploy/nginx.conf over two sidecar processes, or undefined when nginx is missing. */
async function startFront(databasePath: string, config: ServerConfig) {
  if (!nginxBinary()) return undefined;
  const sidecars = [
    await startSidecar(databasePath, { STATIC_FILES: 'front', TRUST_PROXY: '127.0.0.1' }),
    await startSidecar(databasePath, { STATIC_FILES: 'front', TRUST_PROXY: '127.0.0.1' }),
  ];
  const { url, nginx } = await runFront({ config, sidecars: sidecars.map((s) => new URL(s.url).host), prefix: join(scratch, 'front'), port: await port() });
  children.push(nginx);
  return { url, children: [nginx, ...sidecars.map((s) => s.child)] };
}

async function startBaseline(routes: Record<string, { type: string; body: Buffer; method?: 'GET' | 'POST'; headers?: Record<string, string> }>) {
  const p = await port();
  const file = join(scratch, 'baseline.json');
  writeFileSync(file, JSON.stringify(Object.fromEntries(Object.entries(routes).map(([k, v]) => [k, { ...v, body: v.body.toString('base64') }]))));
  const child = spawn(process.execPath, [join(projectRoot, 'scripts/bench/baseline-server.ts'), String(p), file], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  await waitFor(child, 'ready', 'baseline');
  return `http://127.0.0.1:${p}`;
}

function rssMb(pid: number, field = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
}

// Bench data goes through the import's validation, like every writer's.
const database = writeDatabase;

function generatedProfiles(n: number) {
  return {
    profiles: Array.from({ length: n }, (_, i) => ({
      slug: `bench-${i + 1}`,
      name: i % 2 ? `Creator ${i + 1}` : `صانع محتوى ${i + 1}`,
      bio: 'A profile generated for the benchmark, with a bio of a realistic length for a link-in-bio page.',
      lang: i % 2 ? 'en' : 'ar',
      plan: 'paid',
      links: Array.from({ length: 6 }, (_, k) => ({ title: `Link ${k + 1}`, url: `https://example.com/${i}/${k}` })),
      socials: [{ network: 'instagram', url: `https://instagram.com/bench${i}` }],
    })),
  };
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
const mcpBody = (name: string, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

interface Row {
  name: string;
  ours: WrkResult;
  baseline?: WrkResult;
  baselineName?: string;
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a');

async function soak() {
  const config = loadConfig({});
  ensureBuild(config, baseEnv({}));
  const db = join(scratch, 'soak.db');
  database(db, JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')));
  const sidecar = await startSidecar(db);
  const md = { accept: 'text/markdown' };
  const script = cycleScript([
    { path: '/' },
    { path: '/ar/blog' },
    { path: '/en/blog/qr-or-nfc-business-card', headers: md },
    { path: '/index.md' },
    { path: '/p/layla' },
    { path: '/p/sam-rivera', headers: md },
    { path: '/c/k7f2q9' },
    { path: '/c/k7f2q9.vcf' },
    { path: '/c/r8x1' },
    { path: '/layla' },
    { path: '/blog' },
    { path: '/health' },
    { path: '/sitemap.xml' },
    { path: '/.well-known/api-catalog' },
    { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: mcpBody('get_profile', { page: 'layla' }) },
    { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: mcpBody('list_blog_articles', {}) },
  ]);
  const result = await wrk(sidecar.url + '/', { connections: 100, threads: 2, seconds: SECONDS, script }, scratch);
  const ok = result.non2xx3xx === 0 && result.socketErrors === 0 && result.requests > 0;
  console.log(
    `soak: ${fmt(result.requests)} requests in ${SECONDS}s at 100 connections across 16 routes: ${fmt(result.rps)} req/s, p50 ${fmt(result.p50, 2)} ms, p99 ${fmt(result.p99, 2)} ms, ` +
      `${result.non2xx3xx} non-2xx/3xx, ${result.socketErrors} socket errors`,
  );
  console.log(ok ? '1 passed, 0 failed' : '0 passed, 1 failed');
  process.exit(ok ? 0 : 1);
}

async function memoryRow(profiles: number) {
  const db = database(join(scratch, `mem-${profiles}.db`), generatedProfiles(profiles));
  const sidecar = await startSidecar(db);
  await new Promise((r) => setTimeout(r, 1000));
  const idle = rssMb(sidecar.pid);
  const t0 = performance.now();
  const sitemap = await (await fetch(sidecar.url + '/sitemap.xml')).text();
  const sitemapMs = performance.now() - t0;
  const script = `request = function() return wrk.format("GET", "/p/bench-" .. math.random(1, ${profiles})) end\n`;
  await wrk(sidecar.url + '/', { connections: 50, seconds: 2, script }, scratch);
  const load = await wrk(sidecar.url + '/', { connections: 50, seconds: SECONDS, script }, scratch);
  const after = rssMb(sidecar.pid);
  // Anonymous memory is what each further sidecar on a host costs; the rest is mostly the node executable's
  // pages, shared between processes.
  const anon = rssMb(sidecar.pid, 'RssAnon');
  sidecar.child.kill('SIGKILL');
  return { profiles, idle, after, anon, load, sitemapMs, sitemapUrls: (sitemap.match(/<loc>/g) ?? []).length, sitemapIsIndex: sitemap.includes('<sitemapindex') };
}

/** The 2026-07-28 envelope for a tools/call: the _meta keys in the body, and the headers that must agree with it. */
const MODERN = '2026-07-28';
const modernCall = (name: string, args: Record<string, unknown>) => ({
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } } },
  }),
});

/**
 * `npm run bench -- --mcp`: tools/call on both protocol generations against a bare Fastify route answering the same
 * bytes, at 50 connections (throughput) and 10 (latency). Writes BENCHMARKS.mcp.md.
 */
async function mcpBench() {
  ensureBuild(loadConfig({}), baseEnv({}));
  const db = database(join(scratch, 'mcp.db'), JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')));
  const sidecar = await startSidecar(db);
  const calls = [
    { name: 'get_profile', args: { page: 'layla' } },
    { name: 'list_blog_articles', args: {} },
  ];
  const requests = calls.flatMap((c) => [
    { label: `${c.name}, 2025-11-25`, headers: MCP_HEADERS as Record<string, string>, body: mcpBody(c.name, c.args) },
    { label: `${c.name}, 2026-07-28`, ...modernCall(c.name, c.args) },
  ]);
  const routes: Parameters<typeof startBaseline>[0] = {};
  for (const [i, r] of requests.entries()) {
    const res = await fetch(sidecar.url + '/mcp', { method: 'POST', headers: r.headers, body: r.body });
    const headers = Object.fromEntries([...res.headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)));
    const body = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200 || body.includes('"error"')) throw new Error(`${r.label}: ${res.status} ${body.toString('utf8').slice(0, 300)}`);
    routes[`/same-${i}`] = { type: res.headers.get('content-type') ?? '', body, headers, method: 'POST' };
  }
  const baseline = await startBaseline(routes);
  const measure = async (url: string, path: string, r: { headers: Record<string, string>; body: string }, connections: number) => {
    const script = cycleScript([{ method: 'POST', path, headers: r.headers, body: r.body }]);
    await wrk(url, { connections, seconds: 2, script }, scratch);
    return wrk(url, { connections, seconds: SECONDS, script }, scratch);
  };
  const lines = [
    '# Benchmarks: MCP tools/call, both protocol generations',
    '',
    `Written by \`npm run bench -- --mcp\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores, ${SECONDS} s per run after a 2 s warm-up, Node ${process.versions.node}. The baseline is a bare Fastify route answering the same bytes (body and headers).`,
    '',
    '| tools/call | req/s at 50 connections | bare route req/s | ratio (goal ≥ 0.25) | p50 / p99 ms at 10 connections (goal p99 ≤ 20) |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const [i, r] of requests.entries()) {
    const ours = await measure(sidecar.url + '/', '/mcp', r, 50);
    const bare = await measure(baseline + '/', `/same-${i}`, { headers: r.headers, body: '{}' }, 50);
    const latency = await measure(sidecar.url + '/', '/mcp', r, 10);
    lines.push(`| ${r.label} | ${fmt(ours.rps)} | ${fmt(bare.rps)} | ${fmt(ours.rps / bare.rps, 2)}× | ${fmt(latency.p50, 1)} / ${fmt(latency.p99, 1)} |`);
    console.log(lines.at(-1));
  }
  const inProcess = await mcpInProcess(db, requests[0]!, requests[1]!);
  lines.push(
    '',
    '## Where the time goes',
    '',
    'One tools/call get_profile without HTTP (no sockets, no Fastify), the pieces of each leg called in a loop in the bench process (median of five rounds of 4,000 calls). For scale: at the ratio goal, a whole request (HTTP included) may take four times what the bare route takes, about 130 µs on this machine.',
    '',
    '| in process | µs per call |',
    '|---|---:|',
    ...inProcess.map(([label, us]) => `| ${label} | ${fmt(us, 1)} |`),
  );
  lines.push('');
  writeFileSync(join(projectRoot, 'BENCHMARKS.mcp.md'), lines.join('\n'));
  console.log(lines.join('\n'));
  process.exit(0);
}

/**
 * What compression costs and saves on the cached rows: each row with no Accept-Encoding (as the other rows run), with
 * a browser's (`gzip, deflate, br, zstd`: brotli) and with gzip alone; the bytes of one answer in each coding.
 */
async function compressionBench() {
  const config = loadConfig({});
  ensureBuild(config, baseEnv({}));
  const demoDb = database(join(scratch, 'demo.db'), JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')));
  const sidecar = await startSidecar(demoDb);
  const article = '/en/blog/qr-or-nfc-business-card';
  const cases: [string, string, Record<string, string>][] = [
    ['Static HTML page', article, {}],
    ['Its Markdown twin', article, { accept: 'text/markdown' }],
    ['Live profile, cached', '/p/layla', {}],
    ['Live card, cached', '/c/k7f2q9', {}],
    ['Live QR code, cached', '/c/k7f2q9/qr.svg', {}],
  ];
  const codings: [string, Record<string, string>][] = [
    ['none', {}],
    ['browser (br)', { 'accept-encoding': 'gzip, deflate, br, zstd' }],
    ['gzip', { 'accept-encoding': 'gzip' }],
  ];
  const bytes = async (path: string, headers: Record<string, string>) => {
    const { request } = await import('node:http');
    const url = new URL(sidecar.url + path);
    return new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, headers }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => resolve(n));
      });
      req.on('error', reject);
      req.end();
    });
  };
  const lines = [
    '# Compression',
    '',
    `Produced by \`npm run bench -- --compression --duration ${SECONDS}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, wrk -t2 -c50 -d${SECONDS}s. One sidecar (\`npm run serve\`), cached answers: static files from the build's brotli and gzip copies, live pages compressed once when first asked for in a coding and kept with the page in the live cache.`,
    '',
    '| Row | Accept-Encoding | req/s | p99 ms | bytes per answer | saved | rate against no Accept-Encoding |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const [name, path, headers] of cases) {
    const results: { coding: string; result: WrkResult; size: number }[] = [];
    for (const [coding, extra] of codings) {
      const all = { ...headers, ...extra };
      await wrk(sidecar.url + path, { headers: all, seconds: 2 }, scratch);
      results.push({ coding, result: await wrk(sidecar.url + path, { headers: all, seconds: SECONDS }, scratch), size: await bytes(path, all) });
    }
    const plain = results[0]!;
    for (const { coding, result, size } of results) {
      lines.push(`| ${name} | ${coding} | ${fmt(result.rps)} | ${fmt(result.p99, 2)} | ${fmt(size)} | ${fmt((1 - size / plain.size) * 100)}% | ${fmt(result.rps / plain.result.rps, 2)}× |`);
      console.log(`${name}, ${coding}: ${fmt(result.rps)} req/s, ${fmt(size)} bytes`);
    }
  }
  writeFileSync(join(projectRoot, 'BENCHMARKS.compression.md'), lines.join('\n') + '\n');
  console.log('\n' + lines.join('\n'));
  process.exit(0);
}

async function main() {
  if (flags.soak) return soak();
  if (flags.mcp) return mcpBench();
  if (flags.compression) return compressionBench();
  if (flags.edge) {
    const config = loadConfig({});
    ensureBuild(config, baseEnv({}));
    const nginx = await startNginx(join(projectRoot, 'dist/client'), config);
    const article = '/en/blog/qr-or-nfc-business-card';
    if (nginx) await wrk(nginx.url + article, { seconds: 2 }, scratch);
    await edgeBench({
      seconds: SECONDS,
      scratch,
      nginxVersion: nginx?.version,
      staticRun: async () => (nginx ? wrk(nginx.url + article, { seconds: SECONDS }, scratch) : undefined),
    });
    process.exit(0);
  }
  if (flags.lighthouse) {
    const config = loadConfig({});
    ensureBuild(config, baseEnv({}));
    const demoDb = database(join(scratch, 'demo.db'), JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')));
    const sidecar = await startSidecar(demoDb);
    await lighthouseBench(sidecar.url, scratch);
    process.exit(0);
  }
  if (flags.build) {
    const sizes = flags.articles ? [Number(flags.articles)] : [200, 2000];
    const rows = sizes.map((n) => {
      console.log(`Building ${n} articles a language, cold and after one edit…`);
      const row = buildBench(n, scratch);
      console.log(`${n}/lang: cold ${row.cold.seconds.toFixed(1)} s, rebuild ${row.rebuild.seconds.toFixed(1)} s, Hugo ${row.hugoSeconds?.toFixed(2) ?? '—'} s`);
      return row;
    });
    const largest = rows.at(-1)!;
    const db = database(join(scratch, 'search.db'), JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')));
    // A sidecar in this process over the generated build (npm run serve always serves the project's own dist/).
    const { buildApp } = await import('../../sidecar/app.ts');
    const app = await buildApp({ config: { ...loadConfig({ LOG_LEVEL: 'warn' }), databasePath: db }, distDir: largest.dist });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    // A typical query a language: two words in English, one with و+ال in Arabic.
    const queries: Partial<Record<Lang, string>> = { en: 'business card', ar: 'والبطاقة' };
    const searches = await searchDownload(url, Object.entries(queries).map(([lang, q]) => ({ lang, q: q! })));
    await app.close();
    const command = `npm run bench -- --build${flags.articles ? ` --articles ${flags.articles}` : ''}`;
    const report = buildReport(rows, searches, command, `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
    writeFileSync(join(projectRoot, 'BENCHMARKS.build.md'), report + '\n');
    console.log('\n' + report);
    process.exit(0);
  }
  if (flags['data-tier']) {
    ensureBuild(loadConfig({}), baseEnv({}));
    return dataTierBench({ seconds: SECONDS, sizes: flags.million ? [2000, 100_000, 1_000_000] : [2000, 100_000], scratch });
  }
  const config = loadConfig({});
  console.log('Building the site…');
  ensureBuild(config, baseEnv({}));
  const demoDb = database(join(scratch, 'demo.db'), JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')));

  const sidecar = await startSidecar(demoDb);
  const uncached = await startSidecar(demoDb, { LIVE_CACHE_SIZE: '0' });
  const logged = await startSidecar(demoDb, { LOG_LEVEL: 'info' });
  const nginx = await startNginx(join(projectRoot, 'dist/client'), config);

  const article = '/en/blog/qr-or-nfc-business-card';
  // The baseline answers with the same bytes: the same body and the same response headers (security headers,
  // ETag, Cache-Control, Vary…), less those Node adds itself. One more route sends the body alone, for scale.
  const same = async (url: string, init?: RequestInit) => {
    // The bytes wrk gets: it sends no Accept-Encoding (fetch would ask for brotli and decode it).
    const res = await fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string> | undefined), 'accept-encoding': 'identity' } });
    const headers = Object.fromEntries([...res.headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)));
    return { type: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()), headers };
  };
  const mcpInit = (body: string): RequestInit => ({ method: 'POST', headers: MCP_HEADERS, body });
  const profile = await same(sidecar.url + '/p/layla');
  const baseline = await startBaseline({
    '/profile': profile,
    '/profile-body': { type: profile.type, body: profile.body },
    '/mcp-profile': { ...(await same(sidecar.url + '/mcp', mcpInit(mcpBody('get_profile', { page: 'layla' })))), method: 'POST' },
    '/mcp-list': { ...(await same(sidecar.url + '/mcp', mcpInit(mcpBody('list_blog_articles', {})))), method: 'POST' },
  });

  // Each measurement follows a short warm-up of the same request (JIT, caches, connection pools).
  const run = async (url: string, extra: Parameters<typeof wrk>[1] = {}) => {
    await wrk(url, { ...extra, seconds: 2 }, scratch);
    return wrk(url, { seconds: SECONDS, ...extra }, scratch);
  };
  const post = (path: string, body: string) => ({ script: cycleScript([{ method: 'POST', path, headers: MCP_HEADERS, body }]) });
  const md = { headers: { accept: 'text/markdown' } };
  const rows: Row[] = [];
  const row = async (name: string, ours: Promise<WrkResult>, baselineName?: string, base?: () => Promise<WrkResult>) => {
    const r: Row = { name, ours: await ours };
    if (base && baselineName) Object.assign(r, { baseline: await base(), baselineName });
    rows.push(r);
    console.log(`${name}: ${fmt(r.ours.rps)} req/s${r.baseline ? ` vs ${fmt(r.baseline.rps)} (${baselineName})` : ''}`);
  };

  console.log(`Load: wrk, 2 threads, 50 connections, ${SECONDS} s per row…`);
  await row('Static HTML page', run(sidecar.url + article), 'nginx', nginx ? () => run(nginx.url + article) : undefined);
  await row('Its Markdown twin (Accept: text/markdown)', run(sidecar.url + article, md), 'nginx', nginx ? () => run(nginx.url + article, md) : undefined);
  await row('Live profile, cached', run(sidecar.url + '/p/layla'), 'bare Fastify, same headers and body', () => run(baseline + '/profile'));
  await row('Live profile, cached (vs the body alone)', run(sidecar.url + '/p/layla'), 'bare Fastify, same body, 1 header', () => run(baseline + '/profile-body'));
  await row('Live profile, cache off (a render per request)', run(uncached.url + '/p/layla'));
  await row('Live card, cached', run(sidecar.url + '/c/k7f2q9'));
  await row('Alias redirect', run(sidecar.url + '/layla'));
  await row('MCP tools/call get_profile', run(sidecar.url + '/mcp', post('/mcp', mcpBody('get_profile', { page: 'layla' }))), 'bare Fastify JSON route, same bytes', () =>
    run(baseline + '/mcp-profile', post('/mcp-profile', '{}')),
  );
  await row('MCP tools/call list_blog_articles', run(sidecar.url + '/mcp', post('/mcp', mcpBody('list_blog_articles', {}))), 'bare Fastify JSON route, same bytes', () =>
    run(baseline + '/mcp-list', post('/mcp-list', '{}')),
  );
  await row('/health', run(sidecar.url + '/health'));
  await row('Static HTML page, LOG_LEVEL=info', run(logged.url + article), 'same, LOG_LEVEL=warn', () => run(sidecar.url + article));

  for (const c of [uncached, logged]) c.child.kill('SIGKILL');

  // The production shape on this machine: nginx (deploy/nginx.conf, one worker) over two sidecars in front mode.
  console.log('Front + two sidecars…');
  const shapeRows: Row[] = [];
  const front = await startFront(demoDb, config);
  if (front) {
    const shape = async (name: string, path: string, extra: Parameters<typeof wrk>[1] = {}) => {
      const r: Row = { name, ours: await run(front.url + path, extra), baseline: await run(sidecar.url + path, extra), baselineName: 'one sidecar alone' };
      shapeRows.push(r);
      console.log(`${name}: ${fmt(r.ours.rps)} req/s vs ${fmt(r.baseline?.rps ?? NaN)} (one sidecar)`);
    };
    await shape('Static HTML page', article);
    await shape('Its Markdown twin', article, md);
    await shape('Live profile, cached', '/p/layla');
    await shape('MCP tools/call get_profile', '/mcp', post('/mcp', mcpBody('get_profile', { page: 'layla' })));
    for (const c of front.children) c.kill('SIGKILL');
  }
  sidecar.child.kill('SIGKILL');

  console.log('Build at scale…');
  const builds = [];
  for (const n of flags.quick ? [50] : [200, 2000]) {
    builds.push(buildBench(n, scratch));
    console.log(`build ${n}/lang: ${fmt(builds.at(-1)?.cold.seconds ?? NaN, 1)} s cold, ${fmt(builds.at(-1)?.rebuild.seconds ?? NaN, 1)} s after one edit`);
  }
  console.log('Memory and sitemap at scale…');
  const memory = [];
  for (const n of flags.quick ? [1000] : [10_000, 100_000]) {
    memory.push(await memoryRow(n));
    console.log(`memory ${n}: ${fmt(memory.at(-1)?.after ?? NaN)} MB`);
  }

  report(rows, builds, memory, shapeRows, nginx?.version.trim());
}

function report(rows: Row[], builds: BuildBench[], memory: Awaited<ReturnType<typeof memoryRow>>[], shapeRows: Row[], nginxVersion?: string) {
  const find = (name: string) => rows.find((r) => r.name.startsWith(name));
  const ratio = (r?: Row) => (r?.baseline ? r.ours.rps / r.baseline.rps : NaN);
  const liveRows = rows.filter((r) => /^(Live|Alias|MCP)/.test(r.name) && !r.name.includes('cache off'));
  const worstLiveP99 = Math.max(...liveRows.map((r) => r.ours.p99));
  const big = memory.at(-1);
  const budgets: [string, boolean, string][] = [
    ['Static from the sidecar ≥ 0.5× nginx', ratio(find('Static HTML page')) >= 0.5 && ratio(find('Its Markdown')) >= 0.5, `${fmt(ratio(find('Static HTML page')), 2)}× (HTML), ${fmt(ratio(find('Its Markdown')), 2)}× (twin)`],
    [
      'Cached live page ≥ 0.7× the bare route',
      ratio(find('Live profile, cached')) >= 0.7,
      `${fmt(ratio(find('Live profile, cached')), 2)}× (same bytes); ${fmt(ratio(find('Live profile, cached (vs')), 2)}× against the body alone`,
    ],
    ['MCP tools/call ≥ 0.25× the bare JSON route', ratio(find('MCP tools/call get_profile')) >= 0.25 && ratio(find('MCP tools/call list')) >= 0.25, `${fmt(ratio(find('MCP tools/call get_profile')), 2)}× (get_profile), ${fmt(ratio(find('MCP tools/call list')), 2)}× (list_blog_articles)`],
    ['p99 ≤ 20 ms at 50 connections on every live route', worstLiveP99 <= 20, `worst ${fmt(worstLiveP99, 2)} ms`],
    ['Twins ≤ 20% of build time', builds.every((b) => (b.cold.steps['Markdown twins'] ?? 0) <= 0.2 * b.cold.seconds), builds.map((b) => `${fmt(((b.cold.steps['Markdown twins'] ?? 0) / b.cold.seconds) * 100, 1)}% at ${b.perLang}/lang (cold)`).join(', ')],
    ['Rebuild after one edit ≤ 6× Hugo (issue 19)', builds.every((b) => b.hugoSeconds !== undefined && b.rebuild.seconds <= 6 * b.hugoSeconds), builds.map((b) => (b.hugoSeconds ? `${fmt(b.rebuild.seconds / b.hugoSeconds, 1)}× at ${b.perLang}/lang` : 'Hugo not installed')).join(', ')],
    ['Resident memory ≤ 200 MB with 100,000 profiles', (big?.after ?? Infinity) <= 200, `${fmt(big?.after ?? NaN)} MB after load at ${fmt(big?.profiles ?? NaN)} profiles`],
  ];

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '# Benchmarks',
    '',
    `Produced by \`npm run bench${flags.quick ? ' -- --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpu}, ${fmt(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${nginxVersion ?? 'nginx not installed'}, wrk (Debian).`,
    `Everything runs on loopback on the same machine, in one run: wrk, the sidecar (one process), nginx (one worker) and the bare Fastify baseline share the cores, so ratios matter more than absolute numbers. Each row: \`wrk -t2 -c50 -d${SECONDS}s --latency\`. The sidecar logs at \`warn\` unless a row says otherwise.`,
    '',
    '## Requests',
    '',
    '| Row | req/s | p50 ms | p99 ms | Baseline | Baseline req/s | Baseline p99 ms | Ratio |',
    '|---|---:|---:|---:|---|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${fmt(r.ours.rps)} | ${fmt(r.ours.p50, 2)} | ${fmt(r.ours.p99, 2)} | ${r.baselineName ?? ''} | ${r.baseline ? fmt(r.baseline.rps) : ''} | ${r.baseline ? fmt(r.baseline.p99, 2) : ''} | ${r.baseline ? `${fmt(ratio(r), 2)}×` : ''} |`),
    '',
    '## Deployment shapes',
    '',
    'The front (`deploy/nginx.conf` from `npm run front`, one nginx worker) over two sidecars (`STATIC_FILES=front`), against the one-process default, same machine, same run.',
    '',
    '| Row | Front + 2 sidecars req/s | p50 ms | p99 ms | One sidecar req/s | p99 ms | Ratio |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...(shapeRows.length === 0
      ? ['| (nginx not installed: skipped) | | | | | | |']
      : shapeRows.map((r) => `| ${r.name} | ${fmt(r.ours.rps)} | ${fmt(r.ours.p50, 2)} | ${fmt(r.ours.p99, 2)} | ${fmt(r.baseline?.rps ?? NaN)} | ${fmt(r.baseline?.p99 ?? NaN, 2)} | ${fmt(ratio(r), 2)}× |`)),
    '',
    '## Build',
    '',
    '| Articles per language | Cold build (s) | Rebuild after one edit (s) | Hugo, same articles (s) | Cold / Hugo | Rebuild / Hugo |',
    '|---:|---:|---:|---:|---:|---:|',
    ...builds.map((b) => `| ${fmt(b.perLang)} | ${fmt(b.cold.seconds, 1)} | ${fmt(b.rebuild.seconds, 1)} | ${b.hugoSeconds === undefined ? 'not installed' : fmt(b.hugoSeconds, 2)} | ${b.hugoSeconds ? `${fmt(b.cold.seconds / b.hugoSeconds, 1)}×` : ''} | ${b.hugoSeconds ? `${fmt(b.rebuild.seconds / b.hugoSeconds, 1)}×` : ''} |`),
    '',
    'Each step\'s share, the sizes and the search download: `npm run bench -- --build` (BENCHMARKS.build.md).',
    '',
    '## Memory and sitemap',
    '',
    '| Profiles | RSS idle (MB) | RSS after load (MB) | of which anonymous (MB) | Profile req/s under load (random profiles) | p99 ms | First /sitemap.xml (ms) | Sitemap |',
    '|---:|---:|---:|---:|---:|---:|---:|---|',
    ...memory.map((m) => `| ${fmt(m.profiles)} | ${fmt(m.idle)} | ${fmt(m.after)} | ${fmt(m.anon)} | ${fmt(m.load.rps)} | ${fmt(m.load.p99, 2)} | ${fmt(m.sitemapMs)} | ${m.sitemapIsIndex ? `index of ${m.sitemapUrls} parts` : `${fmt(m.sitemapUrls)} URLs`} |`),
    '',
    '## Budgets',
    '',
    '| Budget | Holds | Measured |',
    '|---|---|---|',
    ...budgets.map(([name, ok, measured]) => `| ${name} | ${ok ? 'yes' : '**no**'} | ${measured} |`),
    '',
  ];
  const text = lines.join('\n');
  const notes = join(projectRoot, 'BENCHMARKS.notes.md');
  writeFileSync(join(projectRoot, 'BENCHMARKS.md'), text + (existsSync(notes) ? '\n' + readFileSync(notes, 'utf8') : ''));
  console.log('\n' + text);
}

await main();
process.exit(0);
