// An edge's fetch through the front (issue 65): the edge in front of nginx marks what it fetches to keep
// (`x-edge-fetch`), and the sidecar then reads its change log first. nginx passes the mark on only from a hop it trusts
// (`--trust-proxy`); a client's own is dropped, so that no client can make a sidecar read its database at each request.
// What nginx sends is read by a plain HTTP server standing where a sidecar would, which answers with the headers it got.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFront } from '../../scripts/front-config.ts';
import { freePort } from '../../scripts/sidecar-process.ts';
import { testConfig } from '../helpers/env.ts';
import { stopNginx } from '../helpers/front.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

const TRUSTED_HOP = '127.0.0.7';

describe('the edge fetch mark through the front (issue 65)', () => {
  let upstream: Server;
  let front: Awaited<ReturnType<typeof runFront>>;
  beforeAll(async () => {
    upstream = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('cache-control', 'no-store');
      res.end(JSON.stringify({ edgeFetch: req.headers['x-edge-fetch'] ?? null }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    front = await runFront({
      config: testConfig,
      sidecars: [`127.0.0.1:${(upstream.address() as AddressInfo).port}`],
      prefix: temporaryFolder('bio-front-'),
      port: await freePort(),
      trustProxy: [TRUSTED_HOP],
    });
  }, 120_000);
  afterAll(async () => {
    if (front) await stopNginx(front.nginx);
    upstream?.close();
  });

  /** What the upstream got for a live page asked with the mark, from `from`. */
  const markFrom = (from: string) =>
    new Promise<string | null>((resolve, reject) => {
      const req = request(`${front.url}/p/layla`, { localAddress: from, headers: { 'x-edge-fetch': '1' } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve((JSON.parse(body) as { edgeFetch: string | null }).edgeFetch));
      });
      req.on('error', reject);
      req.end();
    });

  it('is passed on from a trusted hop', async () => {
    expect(await markFrom(TRUSTED_HOP)).toBe('1');
  });

  it('is dropped from anyone else', async () => {
    expect(await markFrom('127.0.0.1')).toBeNull();
  });
});
