// Fills deploy/nginx.conf, the front, from the configuration and from the sidecar's own rules (content types,
// cache rules, security headers, the homepage Link header), so that the front and the sidecar answer alike.
//   npm run front -- config [--listen 0.0.0.0:80] [--sidecar 127.0.0.1:8081 ...] [--dist DIR] [--prefix DIR] [--workers N]
//                           [--trust-proxy ADDR ...] [--client-requests N] [--client-mcp-requests N]
//                           [--client-rate PER_SECOND] [--client-burst N] [--client-every-rate PER_SECOND]
//                           [--client-every-burst N]
// prints it. Tests, the bench and an operator all use this one function.
//   npm run front -- firewall [--listen 0.0.0.0:80] [--trust-proxy ADDR ...] [--client-connection-rate PER_SECOND]
//                             [--client-connection-burst N] [--client-connections N]
//                             [--client-small-segment-rate PER_SECOND] [--client-small-segment-burst N]
//                             [--client-bytes-rate PER_SECOND] [--client-bytes-burst N]
// prints the nftables rules that hold each client address to its share of new connections (scripts/front-firewall.ts).
import { OWNER_DOMAIN_ASSETS, OWNER_HSTS } from '../src/lib/owner-domains.ts';

/** The group whose members may read the TLS keys: nginx's workers, when the front holds certificates (docs/operations.md). */
export const TLS_GROUP = 'bio-tls';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { commandLine } from './command-line.ts';
import { CONTENT_USAGE } from '../src/lib/ai-preferences.ts';
import { homepageLinks, siteLinks } from '../src/lib/discovery.ts';
import { securityHeaders } from '../sidecar/security-headers.ts';
import { NEGOTIATED_HEADER_CHARS } from '../sidecar/negotiation.ts';
import { buildStyleHashes } from '../src/lib/build-manifest.ts';
import { TYPES, TYPES_BY_PATH } from '../src/lib/media-types.ts';
import { loadConfig, type ServerConfig } from '../sidecar/config.ts';
import {
  pathOf,
  CACHE,
  DEFAULT_LANG,
  FINGERPRINTED_PATH,
  fixedFirstSegment,
  LANGS,
  MCP_BODY_LIMIT,
  RETRY_AFTER,
  ROUTES,
  templatePattern,
  SLUG_PATTERN,
  type RouteDeclaration,
} from '../src/lib/surface.ts';
import { ERROR_STATUSES, paths } from '../src/lib/urls.ts';
import { bodyTooLarge, CODES, errorResponse } from '../sidecar/mcp/jsonrpc.ts';
import { tooLargeMessage } from '../sidecar/request-body.ts';
import { projectRoot } from './project-root.ts';
import { firewallRules, notAddresses, type ConnectionLimits } from './front-firewall.ts';

export interface FrontOptions {
  config: ServerConfig;
  /** host:port the front listens on. */
  listen: string;
  /** host:port of each sidecar (run with STATIC_FILES=front). */
  sidecars: string[];
  /** nginx's own folder: pid, error log, temporary files. */
  prefix: string;
  /** dist/client of a build made for config.baseUrl. */
  dist?: string;
  workers?: number | 'auto';
  accessLog?: string;
  modulesDir?: string;
  /**
   * Addresses or CIDRs of proxies in front of this one (an edge, a load balancer) whose X-Forwarded-For the front
   * believes, so that its own per-client limits count their clients (nginx's realip), not them.
   */
  trustProxy?: string[];
  /** One client's share (FRONT_LIMITS unless given): a load test from one address needs a larger one. */
  clientLimits?: ClientLimits;
  /**
   * TLS (issue 63): host:port nginx listens on with TLS too, and the folder of certificates it reads there, one folder a
   * host as certbot keeps them (`{folder}/{host}/fullchain.pem` and `privkey.pem`), chosen by the name the client asks
   * for (SNI), read at each handshake: an owner's domain is served once its certificate is there, no reload needed.
   */
  tls?: { listen: string; certificates: string };
  /** A folder whose `.well-known/acme-challenge/` is served over plain HTTP at every host: an ACME client's webroot. */
  acmeWebroot?: string;
}

/** One client's share at the front: nginx's limits, and the firewall's on its connections (front-firewall.ts). */
export interface ClientLimits extends ConnectionLimits {
  inProgress: number;
  /** Of which to /mcp: an agent's calls, each holding one of a sidecar's few MCP slots (MCP_MAX_CONCURRENT, 4). */
  mcpInProgress: number;
  /** What goes to the sidecars: a rate a second, with a burst. */
  ratePerSecond: number;
  burst: number;
  /** Every request, static files and 404s included: a rate a second, with a burst. */
  everyRatePerSecond: number;
  everyBurst: number;
}

/**
 * What one client may send the sidecars through the front: requests in progress at once (nginx's limit_conn counts a
 * connection while a request is being processed), and a rate with a burst (limit_req, leaky bucket). A person's
 * browser asks a page and its images, a crawler a few pages a second: far below both. The sidecars judge the same
 * client again (X-Forwarded-For), with their own shares.
 */
export const FRONT_LIMITS: Readonly<ClientLimits> = {
  inProgress: 64,
  mcpInProgress: 8,
  ratePerSecond: 50,
  burst: 200,
  // A page and everything it loads is some thirty requests; a browser's first visit to a few pages, a few hundred.
  everyRatePerSecond: 100,
  everyBurst: 400,
  // A browser opens six connections to a host; a few people behind one address, a few dozen.
  connectionRatePerSecond: 64,
  connectionBurst: 128,
  connectionsOpen: 512,
  // A request is one segment of a few hundred bytes; small ones are a drip's, or a few control frames a second.
  smallSegmentRatePerSecond: 256,
  smallSegmentBurst: 1024,
  // What a client sends is requests (a few hundred bytes each) and /mcp bodies (64 KiB at most): a browser's first
  // visit is tens of kilobytes. A megabyte a second with four at once is far above it, and far below a loopback's speed.
  bytesPerSecond: 1024 * 1024,
  bytesBurst: 4 * 1024 * 1024,
};

/**
 * Connections a worker holds at once: every client's, kept alive between requests, and the sidecars'. Out of slots,
 * nginx closes connections kept alive, the oldest first, whoever's they are: one stranger's 4,500 connections filled
 * the 4,096 it had, and it closed another reader's between two of its requests, and the stranger's 75,000 times in ten
 * seconds, each opened again at once (issue 46). A slot costs a few hundred bytes; each is a file too (two while
 * proxied), and nginx's master, started as root, raises its workers' limit to match.
 */
export const WORKER_CONNECTIONS = 16_384;

/** What the front says itself when a client is past its share, or no sidecar can answer (in JSON-RPC on /mcp). */
const TOO_MANY = `Too many requests: this client has sent more than its share; retry in ${RETRY_AFTER.busy} s`;
const UNAVAILABLE = `Service unavailable: no server can answer now; retry in ${RETRY_AFTER.unavailable} s`;

/** A share no load test from one address reaches: for measuring what the front does, not what it refuses. */
export const UNLIMITED_CLIENT: Readonly<ClientLimits> = {
  inProgress: 65_000,
  mcpInProgress: 65_000,
  ratePerSecond: 100_000,
  burst: 100_000,
  everyRatePerSecond: 100_000,
  everyBurst: 100_000,
  connectionRatePerSecond: 100_000,
  connectionBurst: 100_000,
  connectionsOpen: 100_000,
  smallSegmentRatePerSecond: 100_000,
  smallSegmentBurst: 100_000,
  bytesPerSecond: 999_999_999,
  bytesBurst: 999_999_999,
};

const quote = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;
const indent = (lines: string[], spaces: number) => lines.map((l) => ' '.repeat(spaces) + l).join('\n');

export function frontConfig(options: FrontOptions): string {
  const { config } = options;
  const limits = options.clientLimits ?? FRONT_LIMITS;
  const dist = options.dist ?? join(config.distDir ?? join(projectRoot, 'dist'), 'client');
  const security = [
    ...Object.entries(securityHeaders(config, buildStyleHashes(join(dist, '..')))).map(
      ([name, value]) => `add_header ${name} ${quote(value)} always;`,
    ),
    // Every answer the front makes names its request (issue 64); a sidecar's names the same one (sent below).
    'add_header X-Request-Id $bio_request_id always;',
  ];
  const cors = 'add_header Access-Control-Allow-Origin "*" always;';
  const bare = (type: string) => type.split(';')[0]?.trim() ?? type;

  const byType = new Map<string, string[]>();
  for (const [ext, type] of Object.entries(TYPES))
    byType.set(bare(type), [...(byType.get(bare(type)) ?? []), ext.slice(1)]);
  // text/html is in nginx's list already.
  const charsetTypes = [
    ...new Set(
      [...Object.values(TYPES), ...Object.values(TYPES_BY_PATH)].filter((t) => /charset=utf-8/i.test(t)).map(bare),
    ),
  ].filter((t) => t !== 'text/html');

  const typeOverride = (path: string) => {
    const type = TYPES_BY_PATH[path];
    if (!type) return [];
    // A type with parameters other than the charset (the linkset's profile) is sent as it is.
    return ['types { }', `default_type ${quote(/charset=/i.test(type) ? bare(type) : type)};`];
  };

  // Discovery documents of the build, as declared: an exact location each, a regular expression for a templated path.
  const pageHeaders = [
    'add_header Link $page_link always;',
    `add_header Content-Usage ${quote(CONTENT_USAGE)} always;`,
  ];
  const discoveryRoutes = (Object.values(ROUTES) as RouteDeclaration[]).filter(
    (route) => route.served === 'static' && route.cache === 'discovery',
  );
  const discoveryPaths = new Set(discoveryRoutes.map((route) => route.path));
  const discovery = discoveryRoutes
    .sort((a, b) => (a.path < b.path ? -1 : 1))
    .map((route) => {
      const { path } = route;
      const body = route.negotiated
        ? [
            ...security,
            `add_header Cache-Control ${quote(CACHE.discovery)} always;`,
            'add_header Vary Accept always;',
            ...pageHeaders,
            `try_files ${path}$twin =404;`,
          ]
        : [
            ...typeOverride(path),
            ...security,
            `add_header Cache-Control ${quote(CACHE.discovery)} always;`,
            ...(route.cors ? [cors] : []),
            ...(path === pathOf('getLlmsTxt')
              ? [`add_header Link ${quote(siteLinks(config, { describedBy: false }))} always;`]
              : []),
            'try_files $uri =404;',
          ];
      const match = path.includes('{') ? `~ ${quote(templatePattern(path).source)}` : `= ${path}`;
      return `    location ${match} {\n${indent(body, 6)}\n    }`;
    });
  const otherTyped = Object.keys(TYPES_BY_PATH)
    .filter((path) => !discoveryPaths.has(path))
    .map(
      (path) =>
        `    location = ${path} {\n${indent([...typeOverride(path), ...security, `add_header Cache-Control ${quote(CACHE.page)} always;`, 'try_files $uri =404;'], 6)}\n    }`,
    );

  const homes = LANGS.map((lang) => {
    const path = paths.home(lang);
    const file = path === '/' ? '/index' : path;
    const body = [
      ...security,
      `add_header Cache-Control ${quote(CACHE.page)} always;`,
      'add_header Vary Accept always;',
      ...pageHeaders,
      `try_files ${file}$twin =404;`,
    ];
    return `    location = ${path} {\n${indent(body, 6)}\n    }`;
  });
  // The default language's prefix names its home, which is the root (issue 62), as the sidecars answer it.
  homes.push(
    `    location = /${DEFAULT_LANG} {\n${indent([...security, `return 301 ${config.baseUrl}${paths.home(DEFAULT_LANG)};`], 6)}\n    }`,
    // With a slash (nginx merges a run of them), in one hop as well, its query kept, as the sidecars answer it.
    `    location = /${DEFAULT_LANG}/ {\n${indent([...security, `return 301 ${config.baseUrl}${paths.home(DEFAULT_LANG)}$is_args$args;`], 6)}\n    }`,
  );

  // A sidecar is marked failed only when it cannot answer (refused, reset, timed out: `error timeout`), never for a
  // status it sends: a 503 is what a sidecar says on purpose when it sheds one client's load, and counting it took
  // healthy sidecars out of rotation for everyone (issue 46). The per-client limits apply to what goes to them.
  const proxy = (retry: string, upstream = 'sidecars') =>
    indent(
      [
        `limit_conn per_client_conn ${limits.inProgress};`,
        `limit_req zone=per_client_rate burst=${limits.burst} nodelay;`,
        `limit_req zone=per_client_every burst=${limits.everyBurst} nodelay;`,
        `proxy_pass http://${upstream};`,
        'proxy_http_version 1.1;',
        'proxy_set_header Connection "";',
        'proxy_set_header Host $http_host;',
        'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
        'proxy_set_header X-Forwarded-Proto $scheme;',
        'proxy_set_header X-Request-Id $bio_request_id;',
        'proxy_set_header X-Edge-Fetch $bio_edge_fetch;',
        // One value a language (negotiate.js siteLang), none when the visitor prefers no language of the site.
        'proxy_set_header Accept-Language $site_lang;',
        `proxy_next_upstream ${retry};`,
        'proxy_next_upstream_tries 3;',
        'proxy_connect_timeout 2s;',
      ],
      6,
    );

  // Every route the sidecar answers, from the declaration: prefixes for routes with parameters under a fixed first
  // segment (/p/…), exact locations for fixed paths (/blog); the alias route is the alias-shaped miss below.
  const sidecarRoutes = Object.values(ROUTES as Record<string, RouteDeclaration>).filter((r) => r.served !== 'static');
  const prefixes = [
    ...new Set(sidecarRoutes.filter((r) => r.path.includes('{')).flatMap((r) => fixedFirstSegment(r.path) ?? [])),
  ].sort();
  const exact = sidecarRoutes.filter((r) => !r.path.includes('{'));
  const location = (match: string, body: string[]) => `    location ${match} {\n${body.join('\n')}\n    }`;
  // Documents kept only compressed: gzip from the sidecars, decompressed here for a client that takes no coding, as
  // it reads, at the sidecars' pace and share (nginx.conf, $takes_coding). gzip_proxied: also behind an edge (Via).
  const compressedOnly = sidecarRoutes
    .filter((r) => r.compressedOnly)
    .map((r) =>
      location(`~ ${quote(templatePattern(r.path).source)}`, [
        proxy('error timeout'),
        indent(
          [
            'proxy_set_header Accept-Encoding $sidecar_encoding;',
            'gunzip on;',
            'gzip_proxied any;',
            // The sidecar's Vary stands; nginx would add its own again.
            'gzip_vary off;',
            'limit_conn per_client_identity ' + String(config.decompressSlotsPerClient) + ';',
            'limit_rate $identity_rate;',
          ],
          6,
        ),
      ]),
    );
  const liveLocations = [
    // Before the prefixes: nginx takes the first regular expression that matches.
    ...compressedOnly,
    location(`~ ^/(${prefixes.join('|')})/`, [proxy('error timeout')]),
    ...exact.map((r) =>
      r.served === 'agents'
        ? location(`= ${r.path}`, [
            proxy('error timeout non_idempotent', 'sidecars_by_client'),
            // Fewer at once to /mcp: the front reads each body before it goes on, and sixty-four connections an
            // address from five addresses dripping bodies a byte a segment kept nginx's workers so busy that another
            // reader's cached page waited (p50 38 ms, baseline 3.4); at eight, 9.5 (issue 46).
            `      limit_conn per_client_mcp ${limits.mcpInProgress};`,
            "      # The sidecar's own limit: nginx refuses a larger body itself (reading the rest, lingering), as JSON-RPC.",
            `      client_max_body_size ${MCP_BODY_LIMIT};`,
            // What the front answers itself here is JSON-RPC, as the sidecar's answers are. A location with an
            // error_page of its own inherits none of the server's: the front's 429 went out as nginx's HTML page,
            // without Retry-After, and so would a 502 with every sidecar down.
            '      error_page 413 @mcp_body_too_large;',
            '      error_page 429 @mcp_too_many;',
            '      error_page 502 503 504 =503 @mcp_unavailable;',
          ]) +
          '\n' +
          [
            ['@mcp_body_too_large', 413, bodyTooLarge(MCP_BODY_LIMIT), undefined],
            ['@mcp_too_many', 429, errorResponse(null, CODES.serverError, TOO_MANY), RETRY_AFTER.busy],
            ['@mcp_unavailable', 503, errorResponse(null, CODES.serverError, UNAVAILABLE), RETRY_AFTER.unavailable],
          ]
            .map(([name, status, body, retryAfter]) =>
              location(String(name), [
                indent(
                  [
                    ...security,
                    `add_header Cache-Control ${quote(CACHE[r.cache])} always;`,
                    ...(retryAfter === undefined ? [] : [`add_header Retry-After ${String(retryAfter)} always;`]),
                    // A refusal closes the connection, as the server's @too_many does (deploy/nginx.conf).
                    ...(status === 429 ? ['keepalive_timeout 0;', 'lingering_time 0;'] : []),
                    'default_type application/json;',
                    `return ${String(status)} '${JSON.stringify(body)}';`,
                  ],
                  6,
                ),
              ]),
            )
            .join('\n')
        : location(`= ${r.path}`, [proxy('error timeout')]),
    ),
  ];

  const values: Record<string, string> = {
    MODULES_DIR: options.modulesDir ?? '/usr/lib/nginx/modules',
    WORKERS: String(options.workers ?? 'auto'),
    WORKER_CONNECTIONS: String(WORKER_CONNECTIONS),
    WORKER_FILES: String(2 * WORKER_CONNECTIONS),
    PREFIX: options.prefix,
    // JSON lines (bio_json), refused requests sampled (issue 64: one per request was 45,000 lines in five seconds).
    ACCESS_LOG:
      options.accessLog === undefined || options.accessLog === 'off'
        ? 'off'
        : `${options.accessLog} bio_json if=$loggable`,
    TRUSTED_HOPS: indent(
      (options.trustProxy ?? []).length === 0
        ? ['# No proxy in front of this one: every request id is made here.']
        : (options.trustProxy ?? []).map((address) => `${address} 1;`),
      4,
    ),
    TYPES: indent(
      [...byType]
        .map(([type, exts]) => `${type} ${exts.join(' ')};`)
        .concat(Object.keys(TYPES).includes('.md') ? [] : ['text/markdown md;']),
      4,
    ),
    CHARSET_TYPES: charsetTypes.join(' '),
    DEPLOY_DIR: join(projectRoot, 'deploy'),
    UPSTREAMS: indent(
      options.sidecars.map((address) => `server ${address} max_fails=1 fail_timeout=5s;`),
      4,
    ),
    LISTEN: options.listen,
    WORKER_USER: options.tls
      ? // The workers read each certificate at its handshake: in a group of their own that may read the keys (the
        // guide's `bio-tls`), not one every daemon running as nobody shares.
        `user nobody ${TLS_GROUP};`
      : '# Workers as nginx runs them (nobody, when started as root).',
    TLS_MAPS: indent(
      options.tls
        ? [
            // The certificate's folder is the name the client asked for (SNI), only when it is a host name: a name with
            // a slash or dots in a row would have nginx load any file pair it can read. None asked: the platform's.
            'map $ssl_server_name $tls_name {',
            `  "" ${new URL(config.baseUrl).hostname};`,
            '  "~^[a-z0-9-]+(\\.[a-z0-9-]+)*$" $ssl_server_name;',
            '  default "-";',
            '}',
            // Over TLS, a request whose Host is not the name the connection was made for (RFC 9110 §15.5.20).
            'map "$https:$tls_name:$host" $tls_misdirected {',
            '  "~^on:([^:]+):\\1$" 0;',
            '  "~^on:" 1;',
            '  default 0;',
            '}',
          ]
        : [],
      2,
    ),
    TLS_MISDIRECTED: indent(options.tls ? ['if ($tls_misdirected) { return 421; }'] : [], 4),
    OWNER_SECURITY_HEADERS_INDENTED: indent(
      security.map((line) =>
        line.startsWith('add_header strict-transport-security ')
          ? `add_header strict-transport-security ${quote(OWNER_HSTS)} always;`
          : line,
      ),
      6,
    ),
    TLS: indent(
      options.tls
        ? [
            `listen ${options.tls.listen} ssl http2;`,
            // The certificate of the name the client asked for, read at the handshake (nginx 1.15.9 and later).
            `ssl_certificate ${options.tls.certificates}/$tls_name/fullchain.pem;`,
            `ssl_certificate_key ${options.tls.certificates}/$tls_name/privkey.pem;`,
            'ssl_protocols TLSv1.2 TLSv1.3;',
            'ssl_session_cache shared:bio_tls:10m;',
            'ssl_session_timeout 1d;',
          ]
        : ['# No TLS here (--tls-listen): it ends in front of this front, or add it here.'],
      4,
    ),
    ACME: indent(
      options.acmeWebroot
        ? [
            `location ^~ /.well-known/acme-challenge/ {`,
            `  root ${options.acmeWebroot};`,
            '  default_type text/plain;',
            '  try_files $uri =404;',
            '}',
          ]
        : ['# No ACME challenges answered here (--acme-webroot).'],
      4,
    ),
    OWNER_TO_HTTPS: indent(
      options.tls
        ? [
            // An owner's page is at https:// (its canonical, its codes): plain HTTP leads there, ACME's challenges apart.
            'if ($scheme = http) { return 301 https://$host$request_uri; }',
          ]
        : [],
      6,
    ),
    SERVER_NAME: new URL(config.baseUrl).hostname,
    BASE_URL: config.baseUrl,
    SITE_LANGS: [DEFAULT_LANG, ...LANGS.filter((l) => l !== DEFAULT_LANG)].join(' '),
    ERROR_PAGES: `"^/(${LANGS.join('|')})/(${ERROR_STATUSES.join('|')})(\\.md)?$"`,
    DIST: dist,
    PROXY: proxy('error timeout'),
    RATE: `${limits.ratePerSecond}r/s`,
    EVERY_RATE: `${limits.everyRatePerSecond}r/s`,
    EVERY_BURST: String(limits.everyBurst),
    NEGOTIATED_CHARS: String(NEGOTIATED_HEADER_CHARS),
    RETRY_AFTER_BUSY: String(RETRY_AFTER.busy),
    REAL_IP: indent(
      (options.trustProxy ?? []).length === 0
        ? ['# No proxy in front of this one: $remote_addr is the client.']
        : [
            ...(options.trustProxy ?? []).map((address) => `set_real_ip_from ${address};`),
            'real_ip_header X-Forwarded-For;',
            'real_ip_recursive on;',
          ],
      2,
    ),
    LIVE_LOCATIONS: liveLocations.join('\n'),
    ALIAS_PATTERN: SLUG_PATTERN.source.replace(/^\^/, '^/'),
    MCP_PATH: pathOf('mcp'),
    SITE_LINKS: siteLinks(config),
    HOME_LINKS: homepageLinks(config),
    CONTENT_USAGE,
    IDENTITY_RATE: String(config.identityBytesPerSecond),
    IDENTITY_PER_CLIENT: String(config.decompressSlotsPerClient),
    MAX_BODY: String(MCP_BODY_LIMIT),
    TOO_LARGE: `${tooLargeMessage(MCP_BODY_LIMIT)}.`,
    RETRY_AFTER: String(RETRY_AFTER.unavailable),
    SECURITY_HEADERS_INDENTED: indent(security, 6),
    CACHE_IMMUTABLE: CACHE.immutable,
    FINGERPRINTED: `"${FINGERPRINTED_PATH.source}"`,
    OWNER_DOMAIN_ASSETS: `"${OWNER_DOMAIN_ASSETS.source}"`,
    FINGERPRINTED_KEY: `"~${FINGERPRINTED_PATH.source}"`,
    CACHE_PAGE: CACHE.page,
    CACHE_NONE: CACHE.none,
    CACHE_ERROR: CACHE.error,
    DISCOVERY_LOCATIONS: [...discovery, ...otherTyped].join('\n'),
    HOME_LOCATIONS: homes.join('\n'),
  };
  const template = readFileSync(join(projectRoot, 'deploy', 'nginx.conf'), 'utf8');
  return template.replace(/\{\{([A-Z_]+)\}\}/g, (whole, name: string) => {
    // The header comment names the placeholders as {{…}}; only real names are filled.
    if (!(name in values)) throw new Error(`deploy/nginx.conf: unknown placeholder ${whole}`);
    return values[name] ?? '';
  });
}

/** Debian's nginx, or undefined. */
export function nginxBinary(): string | undefined {
  return ['/usr/sbin/nginx', '/usr/bin/nginx'].find((path) => existsSync(path));
}

/**
 * Runs nginx in the foreground with its own prefix (pid, logs and temporary files there: no root paths) and the
 * configuration text given; resolves once it answers on `url`. For the tests and the bench.
 */
export async function runNginx(prefix: string, conf: string, url: string): Promise<ChildProcess> {
  const binary = nginxBinary();
  if (!binary) throw new Error('nginx is not installed (Debian: apt-get install nginx-light)');
  mkdirSync(join(prefix, 'tmp'), { recursive: true });
  writeFileSync(join(prefix, 'nginx.conf'), conf);
  // Started as root, nginx's workers would run as nobody, who cannot reach a build inside a mode-700 folder (root's
  // home, mktemp -d): here they run as the user who runs the tests or the bench, wherever the clone sits.
  const globals = process.getuid?.() === 0 ? `daemon off; user ${userInfo().username};` : 'daemon off;';
  const child = spawn(
    binary,
    ['-p', prefix, '-e', join(prefix, 'error.log'), '-c', join(prefix, 'nginx.conf'), '-g', globals],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    try {
      await fetch(url + pathOf('getRobots'));
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  child.kill();
  throw new Error(`nginx did not answer on ${url}: ${stderr}`);
}

/**
 * The front on loopback, as the tests and the bench run it: deploy/nginx.conf filled for `sidecars`, one worker, no
 * access log, nginx's own files under `prefix`; resolves once it answers.
 */
export async function runFront(options: {
  config: ServerConfig;
  sidecars: string[];
  prefix: string;
  port: number;
  /** dist/client of the build to serve (the project's own build unless given). */
  dist?: string;
  clientLimits?: ClientLimits;
  /** Where nginx writes its access log (JSON lines), or none. */
  accessLog?: string;
  /** Proxies in front of this front whose client address and request headers are believed. */
  trustProxy?: string[];
}): Promise<{ url: string; nginx: ChildProcess }> {
  const url = `http://127.0.0.1:${options.port}`;
  const conf = frontConfig({
    config: options.config,
    ...(options.dist ? { dist: options.dist } : {}),
    listen: `127.0.0.1:${options.port}`,
    sidecars: options.sidecars,
    prefix: options.prefix,
    workers: 1,
    accessLog: options.accessLog ?? 'off',
    ...(options.clientLimits ? { clientLimits: options.clientLimits } : {}),
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
  });
  return { url, nginx: await runNginx(options.prefix, conf, url) };
}

const USAGE =
  'Usage: npm run front -- config [--listen ADDR:PORT] [--sidecar HOST:PORT ...] [--dist DIR] [--prefix DIR] [--workers N] [--access-log FILE] [--trust-proxy ADDR ...] [--client-requests N] [--client-mcp-requests N] [--client-rate N] [--client-burst N] [--client-every-rate N] [--client-every-burst N] [--tls-listen ADDR:PORT --tls-certificates DIR] [--acme-webroot DIR]; or: npm run front -- firewall [--listen ADDR:PORT] [--trust-proxy ADDR ...] [--client-connection-rate N] [--client-connection-burst N] [--client-connections N] [--client-small-segment-rate N] [--client-small-segment-burst N] [--client-bytes-rate N] [--client-bytes-burst N]';

/** The command line of `npm run front -- config`. */
function parseFlags() {
  return commandLine(USAGE, {
    allowPositionals: true,
    options: {
      listen: { type: 'string', default: '0.0.0.0:80' },
      sidecar: { type: 'string', multiple: true, default: ['127.0.0.1:8081'] },
      prefix: { type: 'string', default: '/var/lib/bio-front' },
      workers: { type: 'string', default: 'auto' },
      'access-log': { type: 'string', default: '/var/log/nginx/bio-access.log' },
      dist: { type: 'string' },
      'trust-proxy': { type: 'string', multiple: true, default: [] },
      'tls-listen': { type: 'string' },
      'tls-certificates': { type: 'string' },
      'acme-webroot': { type: 'string' },
      'client-requests': { type: 'string', default: String(FRONT_LIMITS.inProgress) },
      'client-mcp-requests': { type: 'string', default: String(FRONT_LIMITS.mcpInProgress) },
      'client-rate': { type: 'string', default: String(FRONT_LIMITS.ratePerSecond) },
      'client-burst': { type: 'string', default: String(FRONT_LIMITS.burst) },
      'client-every-rate': { type: 'string', default: String(FRONT_LIMITS.everyRatePerSecond) },
      'client-every-burst': { type: 'string', default: String(FRONT_LIMITS.everyBurst) },
      'client-connection-rate': { type: 'string', default: String(FRONT_LIMITS.connectionRatePerSecond) },
      'client-connection-burst': { type: 'string', default: String(FRONT_LIMITS.connectionBurst) },
      'client-connections': { type: 'string', default: String(FRONT_LIMITS.connectionsOpen) },
      'client-small-segment-rate': { type: 'string', default: String(FRONT_LIMITS.smallSegmentRatePerSecond) },
      'client-small-segment-burst': { type: 'string', default: String(FRONT_LIMITS.smallSegmentBurst) },
      'client-bytes-rate': { type: 'string', default: String(FRONT_LIMITS.bytesPerSecond) },
      'client-bytes-burst': { type: 'string', default: String(FRONT_LIMITS.bytesBurst) },
    },
  });
}

if (import.meta.main) {
  // A value that looks like a flag (`--client-burst -5`) or a flag it does not know: said plainly, no stack.
  const { values, positionals } = parseFlags();
  // Each share a whole number of at least one: nginx would take `rate=0r/s` and refuse `rate=NaNr/s` only at `nginx -t`.
  const shares = {
    'client-requests': values['client-requests'],
    'client-mcp-requests': values['client-mcp-requests'],
    'client-rate': values['client-rate'],
    'client-burst': values['client-burst'],
    'client-every-rate': values['client-every-rate'],
    'client-every-burst': values['client-every-burst'],
    'client-connection-rate': values['client-connection-rate'],
    'client-connection-burst': values['client-connection-burst'],
    'client-connections': values['client-connections'],
    'client-small-segment-rate': values['client-small-segment-rate'],
    'client-small-segment-burst': values['client-small-segment-burst'],
    'client-bytes-rate': values['client-bytes-rate'],
    'client-bytes-burst': values['client-bytes-burst'],
  };
  const bad = Object.entries(shares).filter(([, value]) => !/^[1-9]\d{0,8}$/.test(value));
  if (bad.length > 0) {
    console.error(
      bad.map(([name, value]) => `--${name} must be a whole number from 1 to 999999999 (got "${value}")`).join('\n'),
    );
    process.exit(2);
  }
  // The proxies the front believes: addresses or CIDRs only, for the firewall and nginx's realip alike (a name reached
  // nginx's file and failed only at `nginx -t`).
  const notProxies = notAddresses(values['trust-proxy']);
  if (notProxies.length > 0) {
    console.error(`--trust-proxy must be an IP address or a CIDR (got ${notProxies.map((a) => `"${a}"`).join(', ')})`);
    process.exit(2);
  }
  if (positionals[0] === 'firewall') {
    const port = Number(/:(\d+)$/.exec(values.listen)?.[1]);
    if (!(port >= 1 && port <= 65_535)) {
      console.error(`--listen must end in a port, 1-65535 (got "${values.listen}")`);
      process.exit(2);
    }
    try {
      process.stdout.write(
        firewallRules({
          port,
          trustProxy: values['trust-proxy'],
          limits: {
            connectionRatePerSecond: Number(values['client-connection-rate']),
            connectionBurst: Number(values['client-connection-burst']),
            connectionsOpen: Number(values['client-connections']),
            smallSegmentRatePerSecond: Number(values['client-small-segment-rate']),
            smallSegmentBurst: Number(values['client-small-segment-burst']),
            bytesPerSecond: Number(values['client-bytes-rate']),
            bytesBurst: Number(values['client-bytes-burst']),
          },
        }),
      );
    } catch (err) {
      console.error(`--trust-proxy: ${(err as Error).message}`);
      process.exit(2);
    }
    process.exit(0);
  }
  if (positionals[0] !== 'config') {
    console.error(USAGE);
    process.exit(2);
  }
  // TLS takes both: where to listen, and where the certificates are.
  const tlsListen = values['tls-listen'];
  const tlsCertificates = values['tls-certificates'];
  if ((tlsListen === undefined) !== (tlsCertificates === undefined)) {
    console.error('--tls-listen and --tls-certificates go together: give both, or neither');
    process.exit(2);
  }
  if (tlsListen !== undefined && !/:\d{1,5}$/.test(tlsListen)) {
    console.error(`--tls-listen must end in a port (got "${tlsListen}")`);
    process.exit(2);
  }
  // The folders the configuration names for nginx's own files (its pid, error log and temporary bodies): nginx makes
  // none of them, and `nginx -t` fails without them (#50).
  try {
    mkdirSync(join(values.prefix, 'tmp'), { recursive: true });
  } catch (err) {
    console.error(
      `Could not make ${join(values.prefix, 'tmp')} (${(err as Error).message}): make it before nginx starts.`,
    );
  }
  process.stdout.write(
    frontConfig({
      config: loadConfig(),
      listen: values.listen,
      sidecars: values.sidecar,
      prefix: values.prefix,
      workers: values.workers === 'auto' ? 'auto' : Number(values.workers),
      accessLog: values['access-log'],
      trustProxy: values['trust-proxy'],
      clientLimits: {
        inProgress: Number(values['client-requests']),
        mcpInProgress: Number(values['client-mcp-requests']),
        ratePerSecond: Number(values['client-rate']),
        burst: Number(values['client-burst']),
        everyRatePerSecond: Number(values['client-every-rate']),
        everyBurst: Number(values['client-every-burst']),
        connectionRatePerSecond: Number(values['client-connection-rate']),
        connectionBurst: Number(values['client-connection-burst']),
        connectionsOpen: Number(values['client-connections']),
        smallSegmentRatePerSecond: Number(values['client-small-segment-rate']),
        smallSegmentBurst: Number(values['client-small-segment-burst']),
        bytesPerSecond: Number(values['client-bytes-rate']),
        bytesBurst: Number(values['client-bytes-burst']),
      },
      ...(values.dist ? { dist: values.dist } : {}),
      ...(tlsListen && tlsCertificates ? { tls: { listen: tlsListen, certificates: tlsCertificates } } : {}),
      ...(values['acme-webroot'] ? { acmeWebroot: values['acme-webroot'] } : {}),
    }),
  );
}
