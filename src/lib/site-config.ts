// The one site configuration, read from the environment by the Astro build and by the sidecar alike.
import { resolve } from 'node:path';
import type { Lang } from './surface.ts';

// The languages are declared with the rest of the surface; re-exported for the pages and i18n that read them here.
export { DEFAULT_LANG, isLang, LANGS, type Lang } from './surface.ts';

export interface SiteConfig {
  port: number;
  host: string;
  /** Public origin without a trailing slash, e.g. https://example.com */
  baseUrl: string;
  serviceName: string;
  contactEmail: string;
  /** SQLite file of profiles, cards and aliases (the embedded default); the server only reads it. */
  databasePath: string;
  /** postgres://… : PostgreSQL instead of the SQLite file (for the server, a standby; for the CLI, the primary). */
  databaseUrl: string | undefined;
  /** PostgreSQL: connections per sidecar, the longest a statement may run, and the replay lag that degrades. */
  pgPoolSize: number;
  pgStatementTimeoutMs: number;
  maxReplicaLagMs: number;
  /** Requests to /mcp allowed per client address in each window. */
  mcpRateLimit: number;
  mcpRateWindowSeconds: number;
  /**
   * How often, at most, a sidecar reads the database's change log once the cheap check says something changed;
   * undefined: the backend's default (0 for SQLite, whose log is a local read).
   */
  changePollMs: number | undefined;
  /** Rendered live pages kept in memory; 0 renders every request (for measuring). */
  liveCacheSize: number;
  /** pino level: `info` logs one line per request, `warn` only problems (the default: see BENCHMARKS.md). */
  logLevel: LogLevel;
  /**
   * `serve`: the sidecar answers static pages and files too (one process, the default). `front`: a front (nginx,
   * a CDN) serves dist/client, and the sidecar answers only live routes; static paths sent to it are 404s.
   */
  staticFiles: 'serve' | 'front';
  /**
   * Addresses of fronts whose X-Forwarded-For is believed (Fastify's trustProxy: addresses or CIDRs, comma-separated),
   * so that per-client limits see clients, not the front. Empty: none.
   */
  trustProxy: string;
  /** The whole request (headers and body) must arrive within this; else 408 and the connection is closed. */
  requestTimeoutMs: number;
  /** A connection with no traffic for this long is closed (longer than a front's 60 s keep-alive to upstreams). */
  idleTimeoutMs: number;
  /** JSON-RPC messages in one /mcp batch at most; each counts against the rate limit. */
  mcpMaxBatch: number;
  /** Bytes of one /mcp response at most: a larger answer is replaced by an error asking for less at once. */
  mcpMaxResponseBytes: number;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What pages embed: the part of the configuration a build is made for. */
export type PublicConfig = Pick<SiteConfig, 'baseUrl' | 'serviceName' | 'contactEmail'>;

export function publicConfig(config: SiteConfig): PublicConfig {
  return { baseUrl: config.baseUrl, serviceName: config.serviceName, contactEmail: config.contactEmail };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

const EMAIL = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

/** Reads and validates the configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: Env = process.env): SiteConfig {
  const problems: string[] = [];

  const rawPort = env.PORT?.trim() || '8080';
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port < 1 || port > 65535) {
    problems.push(`PORT must be a whole number from 1 to 65535 (got "${rawPort}")`);
  }

  const host = env.HOST?.trim() || '127.0.0.1';

  const rawBase = env.BASE_URL?.trim() || `http://localhost:${rawPort}`;
  let baseUrl = rawBase;
  try {
    const u = new URL(rawBase);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    if (u.pathname !== '/' || u.search || u.hash || u.username || u.password) throw new Error('path');
    baseUrl = u.origin;
  } catch {
    problems.push(`BASE_URL must be an http(s) origin such as https://example.com, with no path, query or credentials (got "${rawBase}")`);
  }

  const serviceName = env.SERVICE_NAME?.trim() || 'Bio Cards';
  if (serviceName.length > 60) problems.push('SERVICE_NAME must be at most 60 characters');

  const contactEmail = env.CONTACT_EMAIL?.trim() || 'agents@example.com';
  if (!EMAIL.test(contactEmail)) problems.push(`CONTACT_EMAIL must be an e-mail address (got "${contactEmail}")`);

  const databasePath = resolve(env.DATABASE_PATH?.trim() || 'data/bio.db');
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) problems.push('DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for the SQLite file at DATABASE_PATH)');

  const whole = (name: string, fallback: number, max: number, min = 1) => {
    const raw = env[name]?.trim() || String(fallback);
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    return value;
  };
  const mcpRateLimit = whole('MCP_RATE_LIMIT', 120, 1_000_000);
  const mcpRateWindowSeconds = whole('MCP_RATE_WINDOW_SECONDS', 60, 86_400);
  const mcpMaxBatch = whole('MCP_MAX_BATCH', 10, 1000);
  const mcpMaxResponseBytes = whole('MCP_MAX_RESPONSE_BYTES', 4 * 1024 * 1024, 256 * 1024 * 1024, 1024);
  const requestTimeoutMs = whole('REQUEST_TIMEOUT_MS', 30_000, 3_600_000, 100);
  const changePollMs = env.CHANGE_POLL_MS?.trim() ? whole('CHANGE_POLL_MS', 0, 60_000, 0) : undefined;
  const pgPoolSize = whole('PG_POOL_SIZE', 10, 1000);
  const pgStatementTimeoutMs = whole('PG_STATEMENT_TIMEOUT_MS', 2000, 600_000, 10);
  const maxReplicaLagMs = whole('MAX_REPLICA_LAG_MS', 30_000, 86_400_000, 1);
  const idleTimeoutMs = whole('IDLE_TIMEOUT_MS', 75_000, 3_600_000, 100);
  const liveCacheRaw = env.LIVE_CACHE_SIZE?.trim() || '5000';
  const liveCacheSize = Number(liveCacheRaw);
  if (!/^\d+$/.test(liveCacheRaw) || liveCacheSize > 10_000_000) problems.push(`LIVE_CACHE_SIZE must be a whole number from 0 to 10000000 (got "${liveCacheRaw}")`);

  const logLevel = (env.LOG_LEVEL?.trim().toLowerCase() || 'warn') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);

  const staticFiles = (env.STATIC_FILES?.trim().toLowerCase() || 'serve') as SiteConfig['staticFiles'];
  if (staticFiles !== 'serve' && staticFiles !== 'front') problems.push(`STATIC_FILES must be "serve" or "front" (got "${env.STATIC_FILES}")`);

  const trustProxy = env.TRUST_PROXY?.trim() ?? '';

  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return {
    port,
    host,
    baseUrl,
    serviceName,
    contactEmail,
    databasePath,
    databaseUrl,
    pgPoolSize,
    pgStatementTimeoutMs,
    maxReplicaLagMs,
    mcpRateLimit,
    mcpRateWindowSeconds,
    mcpMaxBatch,
    mcpMaxResponseBytes,
    changePollMs,
    liveCacheSize,
    logLevel,
    staticFiles,
    trustProxy,
    requestTimeoutMs,
    idleTimeoutMs,
  };
}

export function dirOf(lang: Lang): 'rtl' | 'ltr' {
  return lang === 'ar' ? 'rtl' : 'ltr';
}
