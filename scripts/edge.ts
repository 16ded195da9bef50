// `npm run edge -- --listen HOST:PORT --backend HOST:PORT [--purger ADDR …] [--prefix DIR]`: Varnish with the
// project's VCL (deploy/edge.vcl) in front of a sidecar or the nginx front, in the foreground, as `npm run front`
// runs nginx. `npm run edge -- config …` prints the filled VCL instead. The tests and the bench start it through
// runEdge. Needs Debian's varnish and varnish-modules (xkey).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostPort, loadConfig } from '../sidecar/config.ts';
import { bodyTooLarge } from '../sidecar/mcp/jsonrpc.ts';
import { securityHeaders } from '../sidecar/security-headers.ts';
import { tooLargeMessage } from '../sidecar/request-body.ts';
import { SMALL_DOCUMENT } from '../sidecar/send.ts';
import { buildStyleHashes } from '../src/lib/build-manifest.ts';
import { DEFAULT_LANG, LANGS } from '../src/lib/locales.ts';
import { pathOf, MCP_BODY_LIMIT, OWN_LANGUAGE_HEADER, RETRY_AFTER } from '../src/lib/surface.ts';
import { paths } from '../src/lib/urls.ts';
import { projectRoot } from './project-root.ts';
import { FRONT_LIMITS, type ClientLimits } from './front-config.ts';
import { commandLine } from './command-line.ts';

export interface EdgeOptions {
  /**
   * host:port of the origin (a sidecar, the nginx front, a Kubernetes Service), or of each of several sidecars: then
   * taken in turn, each probed, and a request that could not reach one (refused, reset, timed out before an answer)
   * sent to the next.
   */
  backend: string | string[];
  /** Addresses (or CIDRs) allowed to PURGE, besides loopback. */
  purgers?: string[];
  /** dist/client of the build whose 503 page the edge answers when the origin is down and nothing is kept. */
  dist?: string;
  /** Where the edge reads that page, when not in `dist` (a container's mounted file). */
  unavailablePage?: string;
  /** The origin's security headers (sidecar/security-headers.ts), for that page. */
  headers: Record<string, string>;
  /** What the edge asks the origin to tell it is up: /health (an origin of another kind: its own). */
  probePath?: string;
  /**
   * One client's share (EDGE_CLIENT_SHARE unless given): of what reaches the origin (misses and passes), and of every
   * request, hits included.
   */
  clientShare?: Pick<ClientLimits, 'burst' | 'ratePerSecond' | 'everyBurst' | 'everyRatePerSecond'>;
}

const VARNISHD = ['/usr/sbin/varnishd', '/usr/local/sbin/varnishd'];

/**
 * What one client may send through the edge, as the front allows (scripts/front-config.ts FRONT_LIMITS): to the origin
 * (misses and passes; hits cost the origin nothing), a burst, then an average rate; and every request, hits and 404s
 * included, a larger burst and rate (issue 60: a hit is cheap, but not free, and a flood of them is the edge's load).
 */
const EDGE_CLIENT_SHARE = FRONT_LIMITS;

export function varnishBinary(): string | undefined {
  return VARNISHD.find((path) => existsSync(path));
}

/** deploy/edge.vcl, filled. */
export function edgeConfig(options: EdgeOptions): string {
  const backends = [options.backend].flat().map(hostPort);
  const share = options.clientShare ?? EDGE_CLIENT_SHARE;
  const acl = [
    '"127.0.0.1"',
    '"::1"',
    ...(options.purgers ?? []).map((p) => (p.includes('/') ? `"${p.split('/')[0]}"/${p.split('/')[1]}` : `"${p}"`)),
  ];
  const dist = options.dist ?? join(projectRoot, 'dist', 'client');
  const values: Record<string, string> = {
    // Each sidecar twice: probed by /health (it and its database) and by /livez (it answers at all), issue 61.
    BACKENDS: backends
      .flatMap(({ host, port }, n) =>
        (['origin_health', 'origin_alive'] as const).map((probe) =>
          [
            `backend ${probe === 'origin_health' ? 'origin' : 'alive'}_${n} {`,
            `  .host = "${host}";`,
            `  .port = "${port}";`,
            '  .connect_timeout = 2s;',
            '  .first_byte_timeout = 30s;',
            `  .probe = ${probe};`,
            '}',
          ].join('\n'),
        ),
      )
      .join('\n'),
    ADD_BACKENDS: [
      ...backends.map((_, n) => `  origins.add_backend(origin_${n});\n  alive.add_backend(alive_${n});`),
      // For each sidecar, the others (two directors: probed by /health, and by /livez): where a fetch it failed is sent
      // again. None with one sidecar, which is never asked twice.
      ...(backends.length > 1
        ? backends.map((_, n) =>
            [
              `  new except_${n} = directors.round_robin();`,
              `  new except_alive_${n} = directors.round_robin();`,
              ...backends.flatMap((_, m) =>
                m === n
                  ? []
                  : [`  except_${n}.add_backend(origin_${m});`, `  except_alive_${n}.add_backend(alive_${m});`],
              ),
            ].join('\n'),
          )
        : []),
    ].join('\n'),
    OTHER_BACKENDS: String(backends.length - 1),
    OTHER_THAN_FAILED:
      backends.length > 1
        ? backends
            .map(
              (_, n) =>
                `    ${n === 0 ? 'if' : '} elsif'} (bereq.http.x-failed-backend == "origin_${n}" || bereq.http.x-failed-backend == "alive_${n}") {\n` +
                `      set bereq.backend = except_${n}.backend();\n` +
                `      if (!std.healthy(bereq.backend)) {\n        set bereq.backend = except_alive_${n}.backend();\n      }`,
            )
            .join('\n') + '\n    }'
        : '    # One sidecar: nowhere else to go.',
    PROBE_PATH: options.probePath ?? pathOf('getHealth'),
    ALIVE_PATH: options.probePath ?? pathOf('getLiveness'),
    PURGERS: acl.map((entry) => `  ${entry};`).join('\n'),
    UNAVAILABLE_PAGE: options.unavailablePage ?? join(dist, `${paths.errorPage(DEFAULT_LANG, 503).slice(1)}.html`),
    MAX_BODY_BYTES: String(MCP_BODY_LIMIT),
    TOO_LARGE: `${tooLargeMessage(MCP_BODY_LIMIT)}.`,
    LARGE_DOCUMENT: String(SMALL_DOCUMENT),
    MCP_PATH: pathOf('mcp'),
    SITE_LANGUAGES: LANGS.map((lang) => `  site_languages.add("${lang}");`).join('\n'),
    DEFAULT_LANG,
    OWN_LANGUAGE_HEADER,
    ORIGIN_BURST: String(share.burst),
    ORIGIN_PERIOD: String(share.burst / share.ratePerSecond),
    ORIGIN_RATE: String(share.ratePerSecond),
    EVERY_BURST: String(share.everyBurst),
    EVERY_PERIOD: String(share.everyBurst / share.everyRatePerSecond),
    EVERY_RATE: String(share.everyRatePerSecond),
    RETRY_AFTER_BUSY: String(RETRY_AFTER.busy),
    RETRY_AFTER: String(RETRY_AFTER.unavailable),
    BODY_TOO_LARGE: JSON.stringify(bodyTooLarge(MCP_BODY_LIMIT)),
    SECURITY_HEADERS: Object.entries(options.headers)
      .map(([name, value]) => `  set beresp.http.${name} = {"${value}"};`)
      .join('\n'),
    SYNTH_SECURITY_HEADERS: Object.entries(options.headers)
      .map(([name, value]) => `    set resp.http.${name} = {"${value}"};`)
      .join('\n'),
  };
  const vcl = readFileSync(join(projectRoot, 'deploy', 'edge.vcl'), 'utf8').replace(
    /\{\{([A-Z_]+)\}\}/g,
    (_, name: string) => {
      const value = values[name];
      if (value === undefined) throw new Error(`deploy/edge.vcl names {{${name}}}, which nothing fills`);
      return value;
    },
  );
  return vcl;
}

/**
 * Varnish on `listen` in front of `backend`, in the foreground (a child process), its files under `prefix`; resolves
 * once it answers. Run as root it skips the jail (`-j none`): its workers then reach a build in a mode-700 folder.
 * Without `prefix`, in a temporary folder of its own, removed when Varnish exits (its shared-memory log is 81 MB: the
 * suites and benches start dozens, and left behind they filled a machine's disk in a day).
 */
export async function runEdge(
  options: EdgeOptions & { listen: string; prefix?: string },
): Promise<{ url: string; varnish: ChildProcess; prefix: string }> {
  const binary = varnishBinary();
  if (!binary) throw new Error('Varnish is not installed (Debian: apt-get install varnish varnish-modules)');
  const temporary = options.prefix === undefined;
  const prefix = options.prefix ?? mkdtempSync(join(tmpdir(), 'bio-edge-'));
  mkdirSync(prefix, { recursive: true });
  const file = join(prefix, 'edge.vcl');
  writeFileSync(file, edgeConfig(options));
  const args = [
    '-F',
    '-a',
    options.listen,
    '-f',
    file,
    '-n',
    join(prefix, 'varnish'),
    '-s',
    'malloc,64m',
    '-p',
    'http_gzip_support=off',
    '-p',
    'default_grace=0',
  ];
  if (process.getuid?.() === 0) args.unshift('-j', 'none');
  const varnish = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  if (temporary) varnish.once('exit', () => rmSync(prefix, { recursive: true, force: true }));
  let output = '';
  varnish.stdout?.on('data', (d) => (output += d));
  varnish.stderr?.on('data', (d) => (output += d));
  const { host, port } = hostPort(options.listen);
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  for (let i = 0; i < 200; i++) {
    if (varnish.exitCode !== null) throw new Error(`varnishd exited: ${output}`);
    try {
      await fetch(url + pathOf('getRobots'), { method: 'HEAD' });
      return { url, varnish, prefix };
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  varnish.kill();
  throw new Error(`Varnish did not answer on ${url}: ${output}`);
}

const USAGE =
  'Usage: npm run edge -- [config] [--listen HOST:PORT] [--backend HOST:PORT ...] [--purger ADDR ...] [--dist DIR] [--prefix DIR]';

if (import.meta.main) {
  const { values, positionals } = commandLine(USAGE, {
    allowPositionals: true,
    options: {
      listen: { type: 'string', default: '127.0.0.1:6081' },
      backend: { type: 'string', multiple: true, default: ['127.0.0.1:8080'] },
      purger: { type: 'string', multiple: true, default: [] },
      prefix: { type: 'string' },
      dist: { type: 'string' },
    },
  });
  const config = loadConfig();
  const dist = values.dist ?? join(config.distDir ?? join(projectRoot, 'dist'), 'client');
  const options = {
    backend: values.backend,
    purgers: values.purger,
    dist,
    headers: securityHeaders(config, buildStyleHashes(join(dist, '..'))),
  };
  if (positionals[0] === 'config') {
    process.stdout.write(edgeConfig(options));
  } else if (positionals.length > 0) {
    console.error(USAGE);
    process.exit(2);
  } else {
    const { url, varnish } = await runEdge({
      ...options,
      listen: values.listen,
      ...(values.prefix ? { prefix: values.prefix } : {}),
    });
    console.log(`Edge (Varnish) on ${url} in front of ${values.backend.join(', ')}; Ctrl-C stops it.`);
    const stop = () => varnish.kill('SIGTERM');
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    varnish.on('exit', (code) => process.exit(code ?? 0));
  }
}
