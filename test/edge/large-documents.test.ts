// A large document through the edge to a client that takes no compression (issue 46): the edge keeps it compressed,
// and gunzipped it for such a client as fast as the client read, on the edge's own cores: five addresses reading a
// 5 MB sitemap part so put another reader's cached page at p99 6-9× its baseline (`npm run bench -- --fair`, Varnish
// over one sidecar). The origin sends it paced and within each client's share of decompression slots
// (sidecar/send.ts); the edge now lets it. A count of bytes in a second, not a time: a slower machine only sends fewer.
import { request } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdge } from '../../scripts/edge.ts';
import { UNLIMITED_CLIENT } from '../../scripts/front-config.ts';
import { freePort, type SidecarProcess } from '../../scripts/sidecar-process.ts';
import { securityHeaders } from '../../sidecar/security-headers.ts';
import { buildStyleHashes } from '../../src/lib/build-manifest.ts';
import { clientDir, distDir, testConfig } from '../helpers/env.ts';
import { largeDatabase } from '../helpers/large-database.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';

const PART = '/sitemaps/2.xml';

describe('a large document through the edge, to a client that takes no compression', () => {
  let sidecar: SidecarProcess;
  let edge: { url: string; varnish: ChildProcess };
  beforeAll(async () => {
    sidecar = await spawnTestSidecar({ ...(await largeDatabase('sqlite')), TRUST_PROXY: '127.0.0.1' });
    edge = await runEdge({
      listen: `127.0.0.1:${await freePort()}`,
      backend: sidecar.address,
      dist: clientDir,
      headers: securityHeaders(testConfig, buildStyleHashes(distDir)),
      clientShare: UNLIMITED_CLIENT,
    });
  }, 120_000);
  afterAll(() => {
    edge?.varnish.kill('SIGKILL');
    sidecar?.child.kill('SIGKILL');
  });

  /** What a client that takes no compression reads of the part in its first second, and the whole part's headers. */
  const firstSecond = () =>
    new Promise<{ status: number; bytes: number; encoding: string | undefined }>((resolve, reject) => {
      const url = new URL(edge.url);
      const req = request({ host: url.hostname, port: url.port, path: PART, agent: false }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        setTimeout(() => {
          resolve({ status: res.statusCode ?? 0, bytes, encoding: res.headers['content-encoding'] });
          req.destroy();
        }, 1000);
      });
      req.on('error', reject);
      req.end();
    });

  it('is sent at the pace the origin sends it, though the edge keeps a compressed copy', async () => {
    // The compressed copy kept first, as a crawler's request leaves it.
    const gzip = await fetch(edge.url + PART, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    await gzip.arrayBuffer();
    const again = await fetch(edge.url + PART, { headers: { 'accept-encoding': 'gzip' } });
    expect(again.headers.get('cache-status')).toMatch(/hit/);
    await again.arrayBuffer();
    // A first such client read it whole (uncompressed, 5 MB): what it was sent is not what the next is sent from.
    const first = await fetch(edge.url + PART, { headers: { 'accept-encoding': 'identity' } });
    expect((await first.arrayBuffer()).byteLength).toBeGreaterThan(1.25 * 1024 * 1024);
    const read = await firstSecond();
    expect(read.status).toBe(200);
    expect(read.encoding).toBeUndefined();
    expect(read.bytes).toBeGreaterThan(0);
    expect(read.bytes).toBeLessThan(1.25 * 1024 * 1024);
  });
});
