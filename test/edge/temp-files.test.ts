// What the edge leaves on the disk (issue 46's fairness runs start it dozens of times a CI run): Varnish's working
// folder holds its shared-memory log, 81 MB, and a Varnish started in a folder of its own left it behind when it
// stopped. A day of CI runs and benches on one machine so filled /tmp (669 folders, 53 GB) that the next run failed
// with ENOSPC.
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runEdge } from '../../scripts/edge.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { clientDir, distDir, testConfig } from '../helpers/env.ts';

describe('an edge started in a folder of its own', () => {
  it('removes the folder once Varnish stops, however it is stopped', async () => {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      // No origin: the edge answers its own 503 page, and starts all the same.
      const edge = await runEdge({
        listen: `127.0.0.1:${await freePort()}`,
        backend: `127.0.0.1:${await freePort()}`,
        dist: clientDir,
        headers: securityHeaders(testConfig, buildStyleHashes(distDir)),
      });
      expect(existsSync(edge.prefix), signal).toBe(true);
      const exited = once(edge.varnish, 'exit');
      edge.varnish.kill(signal);
      await exited;
      expect(existsSync(edge.prefix), signal).toBe(false);
    }
  });
});
