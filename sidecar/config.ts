// The server's configuration: every variable the sidecar, the CLI and the scripts read, in one schema (zod) with its
// default, its bounds and the message that names it. The Astro build reads only what pages embed
// (src/lib/site-config.ts), which this extends.
import { resolve } from 'node:path';
import { z } from 'zod';
import {
  ConfigError,
  configError,
  DEFAULT_PORT,
  parsePublicConfig,
  publicConfigSchema,
  type PublicConfig,
} from '../src/lib/site-config.ts';
import { defaultRenderThreads } from './render/render-pool.ts';
import { LIMITS, type Limits } from './admission/limits.ts';

export { ConfigError };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

type Env = Record<string, string | undefined>;

/** A whole number from `min` to `max`, `fallback` when unset or blank. */
const whole = (fallback: number, min: number, max: number) =>
  z
    .string()
    .trim()
    .default(String(fallback))
    .transform((raw) => raw || String(fallback))
    .pipe(
      z
        .string()
        .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
        .transform(Number)
        .pipe(
          z
            .number()
            .min(min, `must be a whole number from ${min} to ${max}`)
            .max(max, `must be a whole number from ${min} to ${max}`),
        ),
    );

/** One of `values` (case-insensitive), `fallback` when unset or blank. */
const oneOf = <T extends string>(values: readonly [T, ...T[]], fallback: T) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .default(fallback)
    .transform((raw) => raw || fallback)
    .pipe(z.enum(values, { error: `must be one of ${values.join(', ')}` }));

const text = (fallback: string) =>
  z
    .string()
    .trim()
    .default(fallback)
    .transform((raw) => raw || fallback);

/** The limits' variables (admission/limits.ts), each a whole number in its range. */
const limitsShape = Object.fromEntries(
  Object.values(LIMITS).map((l) => [l.variable, whole(l.default, l.min, l.max)]),
) as Record<(typeof LIMITS)[keyof typeof LIMITS]['variable'], ReturnType<typeof whole>>;

/** An optional postgres:// URL (empty: unset); `what` says, when it is not one, what it is for. */
const postgresUrl = (what: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((raw) => raw || undefined)
    .pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, `must be a postgres:// or postgresql:// URL (${what})`)
        .optional(),
    );

/** The server-only variables, by name, each with its default (the README's table lists the same). */
const serverSchema = z.object({
  ...limitsShape,
  // 0: a port the system chooses, which the start-up line names (tests start sidecars so, with no port to race for).
  PORT: whole(DEFAULT_PORT, 0, 65535),
  HOST: text('127.0.0.1'),
  DATABASE_PATH: text('data/bio.db').transform((path) => resolve(path)),
  // Empty: the project's own dist/. A path (or a link, followed once at start: see docs/operations.md) otherwise.
  DIST_DIR: text('').transform((path) => (path ? resolve(path) : undefined)),
  DATABASE_URL: postgresUrl('leave it unset for the SQLite file at DATABASE_PATH'),
  /** The primary, for LISTEN (issue 65): told of each commit instead of waiting for the next poll of the standby. */
  CHANGE_NOTIFY_URL: postgresUrl("the primary's, for LISTEN"),
  MAX_REPLICA_LAG_MS: whole(30_000, 1, 86_400_000),
  /** Unset: the backend's default (0 for SQLite, whose log is a local read; 250 for PostgreSQL, a round trip). */
  CHANGE_POLL_MS: z
    .string()
    .trim()
    .optional()
    .transform((raw) => raw || undefined)
    .pipe(whole(0, 0, 60_000).optional()),
  LIVE_CACHE_SIZE: whole(5000, 0, 10_000_000),
  LIVE_CACHE_MB: whole(64, 1, 1_000_000),
  /** Unset: every core but the event loop's, at least one. */
  RENDER_THREADS: z
    .string()
    .trim()
    .optional()
    .transform((raw) => raw || undefined)
    .pipe(whole(1, 1, 64).optional()),
  LOG_LEVEL: oneOf(LOG_LEVELS, 'warn'),
  STATIC_FILES: oneOf(['serve', 'front'], 'serve'),
  TRUST_PROXY: text(''),
  SHUTDOWN_DRAIN_MS: whole(1000, 0, 600_000),
  /** The header live answers name their entity in, for edges: Varnish's xkey, Fastly's Surrogate-Key, Cloudflare's Cache-Tag. */
  EDGE_TAG_HEADER: z
    .string()
    .trim()
    .default('xkey')
    .transform((raw) => raw || 'xkey')
    .pipe(
      z.enum(['xkey', 'Surrogate-Key', 'Cache-Tag', 'none'], {
        error: 'must be one of xkey, Surrogate-Key, Cache-Tag, none',
      }),
    ),
  /** Where Prometheus metrics are served (HOST:PORT, an internal address, never the public port); empty: nowhere. */
  METRICS_LISTEN: text('').pipe(z.string().regex(/^(\[?[\w.:-]+\]?:\d+)?$/, 'must be HOST:PORT, e.g. 127.0.0.1:9464')),
  /** Edges the purger purges (comma-separated base URLs); the sidecars do not read it. */
  PURGE_URLS: text('').pipe(
    z.string().regex(/^(https?:\/\/[^\s,]+)?(,https?:\/\/[^\s,]+)*$/, 'must be http(s) URLs separated by commas'),
  ),
});

/** `HOST:PORT` (an IPv6 host in brackets) as its parts; throws naming the value when it is not that. */
export function hostPort(address: string): { host: string; port: number } {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address);
  if (!match) throw new Error(`"${address}" is not HOST:PORT`);
  return { host: match[1]!, port: Number(match[2]) };
}

/** Every variable read, by name (the README's configuration table lists exactly these: a test checks it). */
export const CONFIG_VARIABLES: readonly string[] = [
  ...Object.keys(publicConfigSchema.in.shape),
  ...Object.keys(serverSchema.shape),
];

/** The configuration: what pages embed, the limits (admission/limits.ts), and the rest below. */
export interface ServerConfig extends PublicConfig, Limits {
  port: number;
  host: string;
  /** SQLite file of profiles, cards and aliases (the embedded default); the server only reads it. */
  databasePath: string;
  /**
   * The build served (dist/ of a build made for baseUrl): undefined for the project's own. A `current` link is
   * resolved when the process starts, so a process serves one build whole and a switch is a restart.
   */
  distDir: string | undefined;
  /** postgres://… : PostgreSQL instead of the SQLite file (for the server, a standby; for the CLI, the primary). */
  databaseUrl: string | undefined;
  maxReplicaLagMs: number;
  /** postgres://… of the primary, whose notices of each commit this process LISTENs for (PostgreSQL only). */
  changeNotifyUrl: string | undefined;
  /** How often, at most, a sidecar reads the database's change log once the cheap check says something changed. */
  changePollMs: number;
  /** Rendered live pages kept in memory; 0 renders every request (for measuring). */
  liveCacheSize: number;
  /** The megabytes they may hold at most (pages, their twins and compressed forms, link-preview pictures, codes). */
  liveCacheMb: number;
  /** Worker threads that render live pages, their twins and codes (the event loop renders nothing). */
  renderThreads: number;
  /** pino level: `info` logs one line per request, `warn` only problems (the default: see docs/benchmarks/overview.md). */
  logLevel: LogLevel;
  /**
   * `serve`: the sidecar answers static pages and files too (one process, the default). `front`: a front (nginx,
   * a CDN) serves dist/client, and the sidecar answers only live routes; static paths sent to it are 404s.
   */
  staticFiles: 'serve' | 'front';
  /** Addresses or CIDRs of fronts whose X-Forwarded-For is believed (Fastify's trustProxy), comma-separated; empty: none. */
  trustProxy: string;
  /** On SIGTERM, how long to keep answering (with Connection: close) before closing. */
  shutdownDrainMs: number;
  /** The header live answers name their entity in (undefined: none). */
  edgeTagHeader: 'xkey' | 'Surrogate-Key' | 'Cache-Tag' | undefined;
  /** The edges the purger purges. */
  purgeUrls: string[];
  /** HOST:PORT where metrics are served; empty: none. */
  metricsListen: string;
}

/** For a command's start: the configuration, or its problems on standard error and exit code 1. */
export function loadConfigOrExit(env: Env = process.env): ServerConfig {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}

/** Reads and validates the whole configuration; throws ConfigError naming every bad variable, with its value. */
export function loadConfig(env: Env = process.env): ServerConfig {
  const server = serverSchema.safeParse(env);
  const site = parsePublicConfig(env);
  if (!server.success || !site.success)
    throw configError(
      [...(server.success ? [] : server.error.issues), ...(site.success ? [] : site.error.issues)],
      env,
    );
  const settings = server.data;
  if (settings.CHANGE_NOTIFY_URL && !settings.DATABASE_URL)
    throw configError(
      [{ path: ['CHANGE_NOTIFY_URL'], message: 'needs DATABASE_URL: notices come from a PostgreSQL primary' }],
      env,
    );
  const limits = Object.fromEntries(
    Object.entries(LIMITS).map(([name, { variable }]) => [name, settings[variable as keyof typeof settings]]),
  ) as unknown as Limits;
  return {
    ...site.data,
    ...limits,
    port: settings.PORT,
    host: settings.HOST,
    databasePath: settings.DATABASE_PATH,
    databaseUrl: settings.DATABASE_URL,
    distDir: settings.DIST_DIR,
    maxReplicaLagMs: settings.MAX_REPLICA_LAG_MS,
    changeNotifyUrl: settings.CHANGE_NOTIFY_URL,
    changePollMs: settings.CHANGE_POLL_MS ?? (settings.DATABASE_URL ? 250 : 0),
    liveCacheSize: settings.LIVE_CACHE_SIZE,
    liveCacheMb: settings.LIVE_CACHE_MB,
    renderThreads: settings.RENDER_THREADS ?? defaultRenderThreads(),
    logLevel: settings.LOG_LEVEL,
    staticFiles: settings.STATIC_FILES,
    trustProxy: settings.TRUST_PROXY,
    shutdownDrainMs: settings.SHUTDOWN_DRAIN_MS,
    edgeTagHeader: settings.EDGE_TAG_HEADER === 'none' ? undefined : settings.EDGE_TAG_HEADER,
    purgeUrls: settings.PURGE_URLS ? settings.PURGE_URLS.split(',') : [],
    metricsListen: settings.METRICS_LISTEN,
  };
}
