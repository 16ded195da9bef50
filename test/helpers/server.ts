// A real sidecar listening on 127.0.0.1 with a free port, serving the test build and a real database file.
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../sidecar/app.ts';
import { createDatabase } from './database.ts';
import { distDir, testConfig } from './env.ts';

export interface TestServer {
  url: string;
  app: FastifyInstance;
  databasePath: string;
  close: () => Promise<void>;
}

export async function startTestServer(options: { databasePath?: string } & Partial<AppOptions> = {}): Promise<TestServer> {
  const databasePath = options.databasePath ?? createDatabase();
  const app = await buildApp({ ...options, config: { ...testConfig, databasePath }, distDir });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: address, app, databasePath, close: () => app.close() };
}
