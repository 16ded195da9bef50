import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS } from '../../sidecar/admission/limits.ts';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../sidecar/config.ts';
import { projectRoot } from '../helpers/env.ts';

describe('loadConfig', () => {
  it('has defaults that work locally', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      baseUrl: 'http://localhost:8080',
      serviceName: 'Bio Cards',
      contactEmail: 'agents@example.com',
      databasePath: resolve('data/bio.db'),
      databaseUrl: undefined,
      pgPoolSize: 10,
      pgStatementTimeoutMs: 2000,
      maxReplicaLagMs: 30_000,
      mcpRateLimit: 120,
      mcpRateWindowSeconds: 60,
      mcpMaxBatch: 10,
      mcpMaxResponseBytes: 4 * 1024 * 1024,
      mcpMaxConcurrent: 4,
      liveCacheSize: 5000,
      liveCacheMb: 64,
      renderThreads: Math.max(1, availableParallelism() - 1),
      logLevel: 'warn',
      staticFiles: 'serve',
      trustProxy: '',
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 75_000,
      sendTimeoutMs: 10_000,
      maxConnections: 2048,
      maxConnectionsPerClient: 64,
      maxRequestsPerClient: 64,
      maxPipelinedRequests: 64,
      maxEventLoopDelayMs: 100,
      // The other limits, each its table's default (admission/limits.ts).
      ...Object.fromEntries(Object.entries(LIMITS).map(([name, limit]) => [name, limit.default])),
      changePollMs: 0,
      shutdownDrainMs: 1000,
      edgeTagHeader: 'xkey',
      purgeUrls: [],
      metricsListen: '',
    });
  });

  it('takes the change-log poll interval from the backend unless it is set', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://reader@127.0.0.1/bio' }).changePollMs).toBe(250);
    expect(loadConfig({ DATABASE_URL: 'postgres://reader@127.0.0.1/bio', CHANGE_POLL_MS: '40' }).changePollMs).toBe(40);
    expect(loadConfig({ CHANGE_POLL_MS: '0' }).changePollMs).toBe(0);
  });

  // SHUTDOWN_DRAIN_MS=abc was read raw: NaN, a 1 ms timer, no drain (issue 22).
  it.each([
    ['SHUTDOWN_DRAIN_MS', 'abc'],
    ['SHUTDOWN_DRAIN_MS', '-5'],
    ['CHANGE_POLL_MS', '1.5'],
    ['LIVE_CACHE_SIZE', 'many'],
    ['LOG_LEVEL', 'loud'],
    ['STATIC_FILES', 'cdn'],
    ['DATABASE_URL', 'mysql://x'],
    ['SERVICE_NAME', 'x'.repeat(61)],
  ])('refuses %s=%s, naming the variable and the value', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(`(got "${value}")`);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`- ${name} `));
  });

  it('every variable docs/configuration.md documents is in the schema, and every variable of the schema is documented', () => {
    const readme = readFileSync(join(projectRoot, 'docs', 'configuration.md'), 'utf8');
    const table = readme.slice(
      readme.indexOf('| Variable | Default | Meaning |'),
      readme.indexOf('\n\n', readme.indexOf('| Variable | Default | Meaning |')),
    );
    const documented = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('every limit of sidecar/admission/limits.ts is documented with its own default', () => {
    const readme = readFileSync(join(projectRoot, 'docs', 'configuration.md'), 'utf8');
    for (const { variable, default: fallback } of Object.values(LIMITS))
      expect(new RegExp(`^\\| \`${variable}\` \\| \`(\\d+)\``, 'm').exec(readme)?.[1], variable).toBe(String(fallback));
    // And the configuration takes each in its range, refusing outside it.
    for (const { variable, min, max } of Object.values(LIMITS)) {
      expect(() => loadConfig({ [variable]: String(max) }), variable).not.toThrow();
      expect(() => loadConfig({ [variable]: String(max + 1) }), variable).toThrow(new RegExp(`- ${variable} `));
      if (min > 0) expect(() => loadConfig({ [variable]: String(min - 1) }), variable).toThrow(ConfigError);
    }
  });

  it('derives the default BASE_URL from PORT and normalises a trailing slash away', () => {
    expect(loadConfig({ PORT: '3000' }).baseUrl).toBe('http://localhost:3000');
    expect(loadConfig({ BASE_URL: 'https://Links.Example.com/' }).baseUrl).toBe('https://links.example.com');
  });

  it('names every bad variable in one clear message', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', BASE_URL: 'ftp://x.example/path', CONTACT_EMAIL: 'nobody' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('PORT');
    expect(message).toContain('BASE_URL');
    expect(message).toContain('CONTACT_EMAIL');
  });

  it('refuses a BASE_URL with a path, since every absolute URL is built from it', () => {
    expect(() => loadConfig({ BASE_URL: 'https://example.com/app' })).toThrow(/BASE_URL/);
  });
});
