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
import { pipeline } from '../helpers/pipeline.ts';
import { established } from '../helpers/firewall.ts';
import { guideBlock, runGuideBlock } from '../helpers/guide.ts';
import { temporaryFolder } from '../helpers/temporary.ts';
import { join } from 'node:path';
import { NFT, removeFirewall } from '../../scripts/front-firewall.ts';
import type { Socket } from 'node:net';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { createDatabase } from '../helpers/database.ts';
import { cleanEnv, clientDir, distDir, testConfig } from '../helpers/env.ts';
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
    if (edge) removeFirewall(Number(new URL(edge.url).port));
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

  it('a connection that keeps sending past its share is closed after its refusal, not refused again and again', async () => {
    // Before, every pipelined request past the share was answered 429 on the connection the client kept: one
    // stranger's 5,000 connections reading slowly were each given a refusal for every request they read, and another
    // address's static page went to 22x its p99 (npm run bench -- --fair, varnish, "drawn 4").
    const url = new URL(edge.url);
    const sent = FRONT_LIMITS.everyBurst * 3;
    const first = await pipeline(url, '127.0.2.3', '/robots.txt', sent);
    expect(first.closed).toBe(true);
    // What it was allowed came first, then at most one refusal (Varnish closes without lingering: the reset that the
    // client's unread requests draw may lose it), and nothing after.
    expect(first.statuses['429'] ?? 0).toBeLessThanOrEqual(1);
    // (the reset may cost it answers it was allowed too: how many it reads depends on when its kernel gets the reset).
    expect(first.statuses['200'] ?? 0).toBeLessThan(sent / 2);
    // Its next connection, its share spent: refused and closed at once.
    const again = await pipeline(url, '127.0.2.3', '/robots.txt', 50);
    expect(again.closed).toBe(true);
    expect(again.statuses['200'] ?? 0).toBeLessThan(50);
    // Another address is not refused meanwhile.
    const reader = client(url, '127.0.3.3');
    try {
      for (const path of ['/robots.txt', '/p/layla', '/health']) expect(await reader.get(path), path).toBe(200);
    } finally {
      reader.close();
    }
  });

  it("the guide's firewall before the edge, run as printed: one address held to its new connections, no other address", async () => {
    // Varnish has no per-client connection cap; docs/operations.md ("The edge") loads the front's firewall on the
    // edge's port, with these lines.
    const url = new URL(edge.url);
    const held: Socket[] = [];
    const file = join(temporaryFolder('bio-edge-firewall-'), 'nftables-bio-edge.nft');
    try {
      runGuideBlock(
        guideBlock(/nftables-bio-edge\.nft/),
        [
          ['0.0.0.0:80', `0.0.0.0:${url.port}`],
          ['/etc/nftables-bio-edge.nft', file],
          ['nft -f', `${NFT} -f`],
        ],
        cleanEnv(),
      );
      const { connectionRatePerSecond: rate, connectionBurst: burst } = FRONT_LIMITS;
      const started = performance.now();
      // Three times the burst at once from the stranger, and twenty from a reader beside it.
      const [stranger, reader] = await Promise.all([
        Promise.all(Array.from({ length: 3 * burst }, () => established(url, '127.0.2.4', 700, held))),
        Promise.all(Array.from({ length: 20 }, () => established(url, '127.0.3.4', 5_000, held))),
      ]);
      const seconds = (performance.now() - started) / 1000;
      const through = stranger.filter(Boolean).length;
      expect(through).toBeGreaterThanOrEqual(burst);
      expect(through).toBeLessThanOrEqual(burst + Math.ceil(rate * seconds) + 8);
      expect(reader.every(Boolean)).toBe(true);
      const other = client(url, '127.0.3.5');
      try {
        expect(await other.get('/robots.txt')).toBe(200);
      } finally {
        other.close();
      }
    } finally {
      held.forEach((socket) => socket.destroy());
      removeFirewall(Number(url.port));
    }
  });
});
