// What RFC 9111 asks of a shared cache where Varnish's defaults differ, as deploy/edge.vcl fixes it (found by the
// http-tests cache suite, npm run bench -- --regions): a response with `Vary: *` is never served again, and one with
// no freshness and no Last-Modified is not kept on a guess. Real Varnish in front of a small origin on loopback.
import { UNLIMITED_CLIENT } from '../../scripts/front-config.ts';
import { createServer, type Server } from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEdge } from '../../scripts/edge.ts';
import { freePort } from '../../scripts/sidecar-process.ts';

const ANSWERS: Record<string, Record<string, string>> = {
  '/fresh': { 'cache-control': 'public, max-age=3600' },
  '/vary-star': { 'cache-control': 'public, max-age=3600', vary: '*' },
  '/vary-list-star': { 'cache-control': 'public, max-age=3600', vary: 'Accept, *' },
  '/no-freshness': {},
  '/last-modified-only': { 'last-modified': new Date(Date.now() - 86_400_000).toUTCString() },
};
const hits = new Map<string, number>();
let origin: Server;
let edge: { url: string; varnish: ChildProcess };

beforeAll(async () => {
  origin = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/plain', ...(ANSWERS[path] ?? { 'cache-control': 'no-store' }) });
    res.end(`answer ${hits.get(path)}`);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => origin.listen(port, '127.0.0.1', resolve));
  edge = await runEdge({
    listen: `127.0.0.1:${await freePort()}`,
    backend: `127.0.0.1:${port}`,
    headers: {},
    probePath: '/fresh',
    // The suite asks from one address, many times over: HTTP caching is tested, not one client's share.
    clientShare: UNLIMITED_CLIENT,
  });
}, 30_000);

afterAll(() => {
  edge?.varnish.kill('SIGKILL');
  origin?.close();
});

/** How many times the origin was asked for `path` when the edge was asked twice. */
async function originRequestsForTwo(path: string): Promise<number> {
  const before = hits.get(path) ?? 0;
  for (let i = 0; i < 2; i++) await (await fetch(edge.url + path)).arrayBuffer();
  return (hits.get(path) ?? 0) - before;
}

describe('the edge as a shared HTTP cache', () => {
  it('keeps a fresh response: asked twice, the origin answers once', async () => {
    expect(await originRequestsForTwo('/fresh')).toBe(1);
  });

  it('never serves a response with Vary: * again (RFC 9110 12.5.5: it never matches a later request)', async () => {
    expect(await originRequestsForTwo('/vary-star')).toBe(2);
    expect(await originRequestsForTwo('/vary-list-star')).toBe(2);
  });

  it('does not keep a response with no freshness and nothing to guess it from; may with a Last-Modified', async () => {
    expect(await originRequestsForTwo('/no-freshness')).toBe(2);
    expect(await originRequestsForTwo('/last-modified-only')).toBe(1);
  });
});
