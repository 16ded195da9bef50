// What every bench mode stands on: a scratch folder and the processes it started (both gone when the bench ends),
// the sidecar as production runs it, nginx serving the same files (the static baseline), the front over two
// sidecars, a bare Fastify route answering given bytes (the dynamic baseline), the databases, and the numbers' format.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerConfig } from '../../sidecar/config.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { writeDatabase } from '../../sidecar/store/writer.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { CACHE } from '../../src/lib/surface.ts';
import { projectRoot } from '../ensure-build.ts';
import { nginxBinary, runFront, runNginx, UNLIMITED_CLIENT } from '../front-config.ts';
import { cleanEnv, freePort, spawnSidecar } from '../sidecar-process.ts';

export const scratch = mkdtempSync(join(tmpdir(), 'bio-bench-'));
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));

/** A process the bench started: killed when the bench ends, whatever happens. */
export function track(child: ChildProcess): ChildProcess {
  children.push(child);
  return child;
}

export const baseEnv = (extra: Record<string, string>) => cleanEnv({ LOG_LEVEL: 'warn', ...extra });
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

/** The sidecar as `npm run serve` runs it, over `databasePath` (or `extra`'s DATABASE_URL), no rate limit. */
/**
 * A load generator (wrk) is one client standing for many: the per-client rates are not what a load bench measures,
 * and are lifted for it (a revision from before one of them ignores its variable).
 */
export const LOAD_GENERATOR_ENV = {
  MCP_RATE_LIMIT: '1000000',
  REQUEST_RATE_PER_CLIENT: '1000000',
  REQUEST_BURST_PER_CLIENT: '1000000',
} as const;

export async function startSidecar(databasePath: string, extra: Record<string, string> = {}) {
  const sidecar = await spawnSidecar(
    { DATABASE_PATH: databasePath, ...LOAD_GENERATOR_ENV, SHUTDOWN_DRAIN_MS: '0', ...extra },
    { discardOutput: true },
  );
  track(sidecar.child);
  return { url: sidecar.url, pid: sidecar.child.pid ?? 0, child: sidecar.child };
}

/** nginx (one worker) serving `root` with the sidecar's headers: the static baseline. Undefined without nginx. */
export async function startStaticNginx(root: string, config: ServerConfig) {
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
  track(child);
  // `nginx -v` writes its version to standard error.
  return {
    url,
    version: spawnSync(binary, ['-v'], { encoding: 'utf8' }).stderr.replace('nginx version: ', '').trim() || 'nginx',
  };
}

export async function startFront(databasePath: string, config: ServerConfig) {
  if (!nginxBinary()) return undefined;
  const sidecars = [
    await startSidecar(databasePath, { STATIC_FILES: 'front', TRUST_PROXY: '127.0.0.1' }),
    await startSidecar(databasePath, { STATIC_FILES: 'front', TRUST_PROXY: '127.0.0.1' }),
  ];
  const { url, nginx } = await runFront({
    config,
    sidecars: sidecars.map((s) => new URL(s.url).host),
    prefix: join(scratch, 'front'),
    port: await port(),
    // The load comes from one address: what is measured is what the front serves, not what it refuses one client.
    clientLimits: UNLIMITED_CLIENT,
  });
  track(nginx);
  return { url, children: [nginx, ...sidecars.map((s) => s.child)] };
}

/**
 * The code at `rev` in a git worktree of its own under the scratch folder (named `name`), with this checkout's
 * node_modules: what a bench with `--baseline REV` measures this code against, in the same run. Removed at exit.
 */
export function worktreeAt(rev: string, name: string): string {
  const dir = join(scratch, name);
  execFileSync('git', ['-C', projectRoot, 'worktree', 'add', '--detach', '--force', dir, rev], { stdio: 'ignore' });
  process.on('exit', () => spawnSync('git', ['-C', projectRoot, 'worktree', 'remove', '--force', dir]));
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** This checkout's commit, short, with `-dirty` when it has changes not committed: what a record was made on. */
export function currentRevision(): string {
  const rev = spawnSync('git', ['-C', projectRoot, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  const dirty = spawnSync('git', ['-C', projectRoot, 'status', '--porcelain', '--untracked-files=no'], {
    encoding: 'utf8',
  }).stdout.trim();
  return `${rev || 'unknown'}${dirty ? '-dirty' : ''}`;
}

/** A bench asked for what it cannot do (an option's value it does not know): said in one line, before any work. */
export class UsageError extends Error {}

/** What a bare Fastify process answers at each route. */
export type BaselineRoutes = Record<
  string,
  { type: string; body: Buffer; method?: 'GET' | 'POST'; headers?: Record<string, string> }
>;

/** A bare Fastify process answering each route with the given bytes: what the sidecar is measured against. */
export async function startBaseline(routes: BaselineRoutes): Promise<string> {
  return (await startBaselineProcess(routes)).url;
}

/** startBaseline's process, and its URL. */
export async function startBaselineProcess(routes: BaselineRoutes): Promise<{ url: string; child: ChildProcess }> {
  const p = await port();
  const file = join(scratch, 'baseline.json');
  writeFileSync(
    file,
    JSON.stringify(
      Object.fromEntries(Object.entries(routes).map(([k, v]) => [k, { ...v, body: v.body.toString('base64') }])),
    ),
  );
  const child = spawn(process.execPath, [join(projectRoot, 'scripts/bench/baseline-server.ts'), String(p), file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  await waitFor(child, 'ready', 'baseline');
  return { url: `http://127.0.0.1:${p}`, child };
}

/** A field of /proc/PID/status in MB (VmRSS by default). */
export function rssMb(pid: number, field = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
}

/** A SQLite file holding `json`, through the import's validation, like every writer's. */
export const database = writeDatabase;

/** A SQLite file of the demo data, in the scratch folder. */
export function demoDatabase(name = 'demo.db'): Promise<string> {
  const file = join(projectRoot, 'scripts/demo-data.json');
  return database(join(scratch, name), JSON.parse(readFileSync(file, 'utf8')), { from: file });
}

export function generatedProfiles(n: number) {
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

export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
export const mcpBody = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

/** The 2026-07-28 envelope for a tools/call: the _meta keys in the body, and the headers that must agree with it. */
export const MODERN = '2026-07-28';
export const modernCall = (name: string, args: Record<string, unknown>) => ({
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': name,
  },
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
      },
    },
  }),
});
