// Every request has a share at the edge (issue 60), hits included: the edge rated only what reached the origin, and a
// flood of hits and 404s from one address was the edge's own load, with no limit reached. Now every request of a
// client counts against a rate with a burst, as at the front (FRONT_LIMITS.everyRatePerSecond, everyBurst), before the
// origin's share. Counts, not times.
import { Agent, request } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdge } from '../../scripts/edge.ts';
import { FRONT_LIMITS } from '../../scripts/front-config.ts';
import { freePort, type SidecarProcess } from '../../scripts/sidecar-process.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { createDatabase } from '../helpers/database.ts';
import { clientDir, distDir, testConfig } from '../helpers/env.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';

/** GETs from `localAddress` on kept-alive connections: each answer's status. */
function client(url: URL, localAddress: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const get = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, localAddress, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject).end();
    });
  return { get, close: () => agent.destroy() };
}

describe('every request has a share at the edge', () => {
  let sidecar: SidecarProcess;
  let edge: { url: string; varnish: ChildProcess };
  beforeAll(async () => {
    sidecar = await spawnTestSidecar({ DATABASE_PATH: await createDatabase(), TRUST_PROXY: '127.0.0.1' });
    // The shares as shipped.
    edge = await runEdge({
      listen: `127.0.0.1:${await freePort()}`,
      backend: sidecar.address,
      dist: clientDir,
      headers: securityHeaders(testConfig, buildStyleHashes(distDir)),
    });
  }, 120_000);
  afterAll(() => {
    edge?.varnish.kill('SIGKILL');
    sidecar?.child.kill('SIGKILL');
  });

  it("a stranger's flood of hits is refused past its share; another address's pages are not", async () => {
    const url = new URL(edge.url);
    const stranger = client(url, '127.0.2.1');
    const reader = client(url, '127.0.3.1');
    const statuses: Record<number, number> = {};
    try {
      // A hit once asked.
      expect(await reader.get('/p/layla')).toBe(200);
      const sent = FRONT_LIMITS.everyBurst * 3;
      for (let batch = 0; batch < sent / 50; batch++)
        for (const status of await Promise.all(Array.from({ length: 50 }, () => stranger.get('/p/layla'))))
          statuses[status] = (statuses[status] ?? 0) + 1;
      expect(statuses[429] ?? 0).toBeGreaterThan(FRONT_LIMITS.everyBurst / 2);
      expect((statuses[200] ?? 0) + (statuses[429] ?? 0)).toBe(sent);
      for (const path of ['/p/layla', '/c/k7f2q9', '/health']) expect(await reader.get(path), path).toBe(200);
    } finally {
      stranger.close();
      reader.close();
    }
  });
});
