// A real sidecar listening on 127.0.0.1 with a free port, serving the test build.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../sidecar/app.ts';
import { clientDir, testConfig } from './env.ts';

export interface TestServer {
  url: string;
  app: FastifyInstance;
  close: () => Promise<void>;
}

export async function startTestServer(): Promise<TestServer> {
  const app = await buildApp({ config: testConfig, clientDir });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: address, app, close: () => app.close() };
}
