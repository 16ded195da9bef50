import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/lib/site-config.ts';

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
      liveCacheSize: 5000,
      logLevel: 'warn',
      staticFiles: 'serve',
      trustProxy: '',
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 75_000,
    });
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
