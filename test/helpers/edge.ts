// The edge on loopback for the suites: Varnish (deploy/edge.vcl, as `npm run edge` runs it) in front of one sidecar,
// and the purger (in process) following the same database, so that a suite run through it sees every write.
import type { ChildProcess } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { runEdge } from '../../scripts/edge.ts';
import { UNLIMITED_CLIENT } from '../../scripts/front-config.ts';
import { runPurger } from '../../scripts/purger.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { buildApp, openServices } from '../../sidecar/app.ts';
import type { ServerConfig } from '../../sidecar/config.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { clientDir, distDir } from './env.ts';

/** Set by the vitest projects that run the HTTP and MCP suites through the edge. */
export const throughEdge = process.env.BIO_TEST_EDGE === '1';

export interface Edge {
  url: string;
  app: FastifyInstance;
  renders: () => number;
  varnish: ChildProcess;
  close: () => Promise<void>;
}

export async function startEdge(config: ServerConfig): Promise<Edge> {
  // The edge is the sidecar's front: its connections are every client's.
  const options = { config: { ...config, trustProxy: '127.0.0.1' }, distDir };
  const services = await openServices(options);
  const app = await buildApp({ ...options, services });
  const origin = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
  const { url, varnish } = await runEdge({
    listen: `127.0.0.1:${await freePort()}`,
    backend: origin.host,
    dist: clientDir,
    headers: securityHeaders(config, buildStyleHashes(distDir)),
    // The suites ask from one address as fast as they can: what the edge refuses one client is the fairness suite's
    // (test/faults/fair.test.ts, with the edge as shipped).
    clientShare: UNLIMITED_CLIENT,
  });
  const purger = await runPurger({ ...config, purgeUrls: [url], changePollMs: Math.min(config.changePollMs, 50) });
  // Ready once the origin answers through the edge (a standby's sidecar waits for its first probe), as a load
  // balancer would wait for /health.
  for (let i = 0; i < 100 && (await fetch(`${url}/health`)).status !== 200; i++)
    await new Promise((r) => setTimeout(r, 100));
  return {
    url,
    app,
    renders: () => services.live.renders,
    varnish,
    close: async () => {
      await purger.stop();
      varnish.kill('SIGKILL');
      await app.close();
    },
  };
}
