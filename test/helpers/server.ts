// A real sidecar listening on 127.0.0.1 with a free port, serving the test build and a real database file.
import type { FastifyInstance } from 'fastify';
import { buildApp, openServices, type AppOptions } from '../../sidecar/app.ts';
import type { ServerConfig } from '../../sidecar/config.ts';
import { createDatabase } from './database.ts';
import { distDir, testConfig } from './env.ts';
import { makeReadOnly, readOnlyDatabases } from './read-only.ts';
import { startEdge, throughEdge } from './edge.ts';
import { startFront, throughFront } from './front.ts';
import { databaseFromSqlite, onPostgres, POSTGRES_CHANGE_POLL_MS } from './postgres.ts';

export interface TestServer {
  url: string;
  app: FastifyInstance;
  /** Live pages the server rendered since it started (what its cache did not save). */
  renders: () => number;
  databasePath: string;
  close: () => Promise<void>;
}

export interface TestServerOptions extends Partial<Omit<AppOptions, 'config' | 'distDir'>> {
  databasePath?: string;
  config?: Partial<ServerConfig>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { databasePath: givenPath, config, ...appOptions } = options;
  const databasePath = givenPath ?? (await createDatabase());
  // Suites send many /mcp requests from one address; the rate-limit test sets its own low limit. The server runs in
  // the test's own process, whose event loop the test's work holds too (a CLI run with spawnSync, a QR code decoded):
  // its lag says nothing of the server's, so load shedding is off unless a test sets its own bound.
  const merged = {
    ...testConfig,
    mcpRateLimit: 1_000_000,
    requestRatePerClient: 1_000_000,
    requestBurstPerClient: 1_000_000,
    maxEventLoopDelayMs: Number.POSITIVE_INFINITY,
    ...config,
    databasePath,
  };
  if (onPostgres) {
    // The same rows, in a database of their own on the primary, read from the standby with the read-only role.
    merged.databaseUrl = (await databaseFromSqlite(databasePath)).standby;
    // PostgreSQL's own default poll interval, as loadConfig gives it when DATABASE_URL is set.
    merged.changePollMs = config?.changePollMs ?? POSTGRES_CHANGE_POLL_MS;
  }
  if (throughEdge) {
    const edge = await startEdge(merged);
    return { url: edge.url, app: edge.app, renders: edge.renders, databasePath, close: edge.close };
  }
  if (throughFront) {
    const front = await startFront(merged);
    return {
      url: front.url,
      app: front.sidecars[0]!.app,
      renders: front.sidecars[0]!.renders,
      databasePath,
      close: front.close,
    };
  }
  const restore = readOnlyDatabases && !onPostgres ? makeReadOnly(databasePath) : undefined;
  const services = await openServices({ ...appOptions, config: merged, distDir });
  const app = await buildApp({ ...appOptions, config: merged, distDir, services });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  // A standby's sidecar is ready once its first probe has connected (on a loaded machine that can take a moment), as
  // a load balancer would wait for /health before sending traffic.
  if (onPostgres) {
    for (let i = 0; i < 100 && (await fetch(`${address}/health`)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: address,
    app,
    renders: () => services.live.renders,
    databasePath,
    close: async () => {
      await app.close();
      restore?.();
    },
  };
}
