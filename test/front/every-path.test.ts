// Every path has a share at the front (issue 60). Static files and 404s are nginx's own work, and had no limit: five
// addresses sending 404s with a 15 KB Accept-Language at 76 a second put another reader's pages at p50 166 ms, and
// a plain 404 flood did the same at a hundred times the count. Now every request of a client counts against a rate
// with a burst (FRONT_LIMITS.everyRatePerSecond, everyBurst), and the negotiation reads a bounded header. Counts, not
// times.
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRONT_LIMITS } from '../../scripts/front-config.ts';
import { createDatabase } from '../helpers/database.ts';
import { startShippedFront } from '../helpers/front.ts';
import { dripBody, pipeline } from '../helpers/pipeline.ts';

/** GETs of `path` from `localAddress` on kept-alive connections: each answer's status and body. */
function client(url: URL, localAddress: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, localAddress, agent, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject).end();
    });
  return { get, close: () => agent.destroy() };
}

describe('every path has a share at the front', () => {
  let front: Awaited<ReturnType<typeof startShippedFront>>;
  beforeAll(async () => {
    front = await startShippedFront({ DATABASE_PATH: await createDatabase() });
  }, 120_000);
  afterAll(async () => {
    await front?.stop();
  });

  it("a stranger's 404s with a 15 KB Accept-Language are refused past its share; another address's pages are not", async () => {
    const url = new URL(front.url);
    const stranger = client(url, '127.0.2.1');
    const reader = client(url, '127.0.3.1');
    const padding = Array.from({ length: 900 }, (_, i) => `x-lang${i};q=0.1`).join(',');
    const statuses: Record<number, number> = {};
    try {
      const sent = FRONT_LIMITS.everyBurst * 3;
      for (let batch = 0; batch < sent / 50; batch++)
        for (const { status } of await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            stranger.get(`/missing/${batch}/${i}`, { 'accept-language': `ar,${padding}` }),
          ),
        ))
          statuses[status] = (statuses[status] ?? 0) + 1;
      // Past its burst and its rate, refused: it sent three bursts' worth faster than its rate refills one.
      expect(statuses[429] ?? 0).toBeGreaterThan(FRONT_LIMITS.everyBurst / 2);
      expect((statuses[404] ?? 0) + (statuses[429] ?? 0)).toBe(sent);
      // The reader on another address: the pages and a 404 in the language its header names first.
      for (const path of ['/', '/ar/blog', '/robots.txt', '/p/layla'])
        expect((await reader.get(path)).status, path).toBe(200);
      // Its 404s, the front's own (/missing/page) and a sidecar's (an alias-shaped miss), in the language its header
      // names first; a language named only past what the negotiation reads is not read: the default's page.
      for (const path of ['/missing/page', '/nothing-here']) {
        const missing = await reader.get(path, { 'accept-language': `ar,${padding}` });
        expect(missing.status, path).toBe(404);
        expect(missing.body, path).toMatch(/<html[^>]+lang="ar"/);
        const late = await reader.get(path, { 'accept-language': `${padding},ar` });
        expect(late.body, path).toMatch(/<html[^>]+lang="en"/);
      }
    } finally {
      stranger.close();
      reader.close();
    }
  });

  it('closes a connection that pipelines past its share once it is refused, instead of refusing each request', async () => {
    // Five hundred answers of 429 a connection were what pipelining from five addresses cost the front: another
    // reader's cached page went from p99 2 ms to 109 (npm run bench -- --fair, issue 60).
    const url = new URL(front.url);
    const sent = FRONT_LIMITS.everyBurst * 3;
    const { statuses, closed } = await pipeline(url, '127.0.2.2', '/robots.txt', sent);
    expect(statuses['429']).toBe(1);
    // What it was allowed came first: its burst (and what the rate refilled meanwhile), then the one refusal.
    expect(statuses['200']).toBeGreaterThanOrEqual(FRONT_LIMITS.everyBurst);
    expect(statuses['200']).toBeLessThan(sent - 1);
    expect(closed).toBe(true);
    // Another address is not refused meanwhile.
    const reader = client(url, '127.0.3.2');
    try {
      expect((await reader.get('/robots.txt')).status).toBe(200);
    } finally {
      reader.close();
    }
  });

  // A body sent a byte a segment is read a byte at a time, and nginx went on reading a refused request's body for its
  // lingering time (30 s): 836 connections from one address dripping bodies to a page, refused past the 64 in
  // progress, took another reader's cached page through the front to p99 31-39 ms (control 4.6; npm run bench --
  // --fair). A refusal now ends the connection at the next byte.
  it('closes a refused connection whose body keeps coming, instead of reading it for half a minute', async () => {
    const url = new URL(front.url);
    // /mcp: its eight in progress held by bodies that drip, then one more is refused.
    const held = Array.from({ length: FRONT_LIMITS.mcpInProgress }, () =>
      dripBody(url, '127.0.2.4', '/mcp', { forMs: 12_000 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const refused = await dripBody(url, '127.0.2.4', '/mcp', { forMs: 8000 });
    expect(refused.status).toBe('429');
    expect(refused.closed).toBe(true);
    expect(refused.afterAnswer).toBeLessThan(50);
    // The held ones were still being read, not answered.
    for (const one of await Promise.all(held)) expect(one.status).toBeUndefined();
    // A page (which the sidecars answer for a method other than GET): its sixty-four in progress held the same way.
    const pages = Array.from({ length: FRONT_LIMITS.inProgress }, () =>
      dripBody(url, '127.0.2.5', '/ar/blog', { forMs: 12_000 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const past = await dripBody(url, '127.0.2.5', '/ar/blog', { forMs: 8000 });
    expect(past.status).toBe('429');
    expect(past.closed).toBe(true);
    expect(past.afterAnswer).toBeLessThan(50);
    for (const one of await Promise.all(pages)) expect(one.status).toBeUndefined();
  }, 60_000);
});
