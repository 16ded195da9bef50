// The edge over several sidecars (#50: how the Kubernetes manifests and `npm run edge -- --backend A --backend B` run
// it): Varnish takes them in turn, and when one is killed under load a request that could not reach it goes to the
// next, so readers see no failure; then the probe leaves the dead one out. And a sidecar that answers but cannot read
// its database (one still starting, or cut from it) has its failures asked of the other.
import type { ChildProcess } from 'node:child_process';
import { renameSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdge } from '../../scripts/edge.ts';
import { UNLIMITED_CLIENT } from '../../scripts/front-config.ts';
import { freePort, type SidecarProcess } from '../../scripts/sidecar-process.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { createDatabase } from '../helpers/database.ts';
import { clientDir, distDir, testConfig } from '../helpers/env.ts';
import { startReaders } from '../helpers/readers.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';

/** Two sidecars, one over each of `databases`, and an edge over both; stopped after the describe it is called in. */
function edgeOverTwo(databases: () => Promise<[string, string]>, before?: (databases: [string, string]) => void) {
  const world = {} as { sidecars: SidecarProcess[]; edge: { url: string; varnish: ChildProcess } };
  beforeAll(async () => {
    const paths = await databases();
    world.sidecars = await Promise.all(
      paths.map((databasePath) => spawnTestSidecar({ DATABASE_PATH: databasePath, TRUST_PROXY: '127.0.0.1' })),
    );
    before?.(paths);
    world.edge = await runEdge({
      listen: `127.0.0.1:${await freePort()}`,
      backend: world.sidecars.map((s) => s.address),
      dist: clientDir,
      headers: securityHeaders(testConfig, buildStyleHashes(distDir)),
      clientShare: UNLIMITED_CLIENT,
    });
  });
  afterAll(() => {
    world.edge?.varnish.kill('SIGKILL');
    for (const s of world.sidecars ?? []) s.child.kill('SIGKILL');
  });
  return world;
}

describe('an edge over two sidecars', () => {
  const world = edgeOverTwo(async () => {
    const databasePath = await createDatabase();
    return [databasePath, databasePath];
  });

  it('loses no request when one is killed under load', async () => {
    // /health is never kept: every one of them reaches a sidecar, so half of them would meet the dead one.
    const readers = startReaders({
      count: 8,
      paths: ['/health', '/p/layla', '/health', '/c/k7f2q9', '/health', '/en/blog'],
      get: (path) => fetch(world.edge.url + path),
    });
    await readers.until(60);
    const killedAt = readers.answered();
    world.sidecars[0]!.child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 2500));
    await readers.until(60, killedAt);
    await readers.stop();
    expect(readers.failures).toEqual([]);
    expect(killedAt).toBeGreaterThanOrEqual(60);
    expect(readers.answered() - killedAt).toBeGreaterThan(50);
  });
});

describe('an edge over two sidecars, one of which cannot read its database', () => {
  // The second one's file gone once it has started: it answers, but every live page and its /health are its 503 (what
  // a sidecar whose database does not answer yet says: the Kubernetes pods' first seconds on a busy machine, issue 60).
  const world = edgeOverTwo(
    async () => [await createDatabase(), await createDatabase()],
    ([, lost]) => renameSync(lost, `${lost}.away`),
  );

  it('serves every reader from the other, before its probes have left it out', async () => {
    // Eight readers at once: taken in turn, a fetch asked again could meet the same sidecar when another fetch picked
    // in between; it is sent to the other one.
    const readers = startReaders({
      count: 8,
      paths: ['/health', '/p/layla', '/health', '/c/k7f2q9', '/p/sam-rivera.md', '/en/blog'],
      get: (path) => fetch(world.edge.url + path),
    });
    await readers.until(300);
    await readers.stop();
    expect(readers.failures).toEqual([]);
    expect(readers.answered()).toBeGreaterThanOrEqual(300);
  });
});
