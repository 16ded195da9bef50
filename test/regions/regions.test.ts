// Three regions on loopback (issue 29, scripts/regions/regions.ts): a primary, a standby per region behind a link
// that delays (20, 45, 90 ms each way) and can be cut, a sidecar, a Varnish edge and a purger per region, each told
// of every commit by the primary through its region's link (issue 65). An owner's edit shows at every edge; a region
// cut off keeps answering its readers (the old page) and catches up once the link is back, without a purge lost. The
// bench measures the same at length (npm run bench -- --regions).
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayProxy } from '../../scripts/regions/delay-proxy.ts';
import { startRegions, type Regions } from '../../scripts/regions/regions.ts';

let scratch: string;
let world: Regions;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'regions-test-'));
  world = await startRegions({ scratch });
}, 120_000);

afterAll(async () => {
  await world?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const page = async (edge: string, path: string) => {
  const res = await fetch(edge + path);
  return { status: res.status, text: await res.text(), cache: res.headers.get('cache-status') ?? '' };
};

/** Polls until `check` holds, at most `ms`; resolves to how long it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - started;
}

describe('the delay proxy, a link between regions', () => {
  it('delays each way, keeps the byte order, and refuses connections while cut', async () => {
    const { createServer } = await import('node:net');
    const echo = createServer((s) => s.pipe(s)).listen(0, '127.0.5.1');
    await new Promise((r) => echo.once('listening', r));
    const link = await DelayProxy.start(
      { host: '127.0.5.2', port: 0 },
      { host: '127.0.5.1', port: (echo.address() as { port: number }).port },
      40,
    );
    try {
      const roundTrip = () =>
        new Promise<{ ms: number; text: string }>((resolve) => {
          const started = performance.now();
          const socket = createConnection(link.listen.port, link.listen.host);
          let text = '';
          socket.on('data', (d) => {
            text += d;
            if (text.length >= 30) {
              socket.destroy();
              resolve({ ms: performance.now() - started, text });
            }
          });
          // A cut link closes the connection: whatever was written meets a closed socket.
          socket.on('error', () => resolve({ ms: performance.now() - started, text }));
          socket.on('close', () => resolve({ ms: performance.now() - started, text }));
          for (let i = 0; i < 10; i++) socket.write(String(i).repeat(3));
        });
      const first = await roundTrip();
      expect(first.text).toBe('000111222333444555666777888999');
      expect(first.ms).toBeGreaterThanOrEqual(80);
      link.cut();
      expect((await roundTrip()).text).toBe('');
      link.restore();
      expect((await roundTrip()).text).toBe('000111222333444555666777888999');
    } finally {
      await link.close();
      echo.close();
    }
  });
});

describe('three regions', () => {
  it('every edge answers a live page, with its own Cache-Status', async () => {
    for (const region of world.regions) {
      const first = await page(region.edge.url, '/p/layla');
      expect(first.status, `region ${region.n}`).toBe(200);
      expect(first.text).toContain('ليلى');
      expect((await page(region.edge.url, '/p/layla')).cache, `region ${region.n}`).toMatch(/^edge; hit/);
    }
  });

  it('an edit on the primary shows at every edge (within 3 s here; the bench measures its p99 against 1 s)', async () => {
    const marker = `Edited for every region ${Date.now()}`;
    for (const region of world.regions) await page(region.edge.url, '/p/sam-rivera');
    await world.write('UPDATE profiles SET bio = $1 WHERE slug = $2', [marker, 'sam-rivera']);
    const times = await Promise.all(
      world.regions.map((region) =>
        within(5_000, async () => (await page(region.edge.url, '/p/sam-rivera')).text.includes(marker)),
      ),
    );
    // Bounded loosely here (a test machine is shared); the bench measures p50 and p99 per region.
    for (const [i, ms] of times.entries()) expect(ms, `region ${i + 1}`).toBeLessThan(3_000);
    // Each region's purger listens for the primary's notices (issue 65) and found the edit; by the notice or by its
    // poll, whichever read its standby first after the replay (a race either may win: replication.test shows a
    // sidecar that polls once a minute served by the notice alone).
    for (const region of world.regions) {
      expect(region.purgerLog(), `region ${region.n}`).toMatch(/"msg":"listening for change notices"/);
      expect(region.purgerLog(), `region ${region.n}`).toMatch(/"msg":"changes found","via":"(notice|poll)"/);
    }
  });

  it('region 3 cut off: its readers keep getting the page (the old one), and once the link is back the edit arrives; no purge lost', async () => {
    const region3 = world.regions[2]!;
    const others = world.regions.slice(0, 2);
    const before = `Before the cut ${Date.now()}`;
    await world.write('UPDATE profiles SET bio = $1 WHERE slug = $2', [before, 'northwind-studio']);
    for (const region of world.regions)
      await within(5_000, async () => (await page(region.edge.url, '/p/northwind-studio')).text.includes(before));

    region3.link.cut();
    const statuses: number[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        statuses.push((await page(region3.edge.url, '/p/northwind-studio')).status);
        await new Promise((r) => setTimeout(r, 25));
      }
    })();
    try {
      const during = `Made while region 3 was cut off ${Date.now()}`;
      await world.write('UPDATE profiles SET bio = $1 WHERE slug = $2', [during, 'northwind-studio']);
      for (const region of others)
        await within(5_000, async () => (await page(region.edge.url, '/p/northwind-studio')).text.includes(during));
      // Cut off, region 3 cannot know: it keeps its page, and its readers get it.
      await new Promise((r) => setTimeout(r, 1_500));
      // Its health says how old its newest data is: the last commit it replayed is older than the edit it missed,
      // while region 1 has replayed that edit. Still 200: what it has is a consistent snapshot, and readers are served.
      type Health = { status: string; replica?: { newestCommitAt: string | null; replayLagMs: number } };
      const health3 = (await (await fetch(region3.sidecar.url + '/health')).json()) as Health;
      const health1 = (await (await fetch(world.regions[0]!.sidecar.url + '/health')).json()) as Health;
      expect(health3.status).toBe('ok');
      expect(Date.parse(health3.replica!.newestCommitAt!)).toBeLessThan(Date.parse(health1.replica!.newestCommitAt!));
      const stale = await page(region3.edge.url, '/p/northwind-studio');
      expect(stale.status).toBe(200);
      expect(stale.text).toContain(before);
      expect(stale.text).not.toContain(during);

      region3.link.restore();
      await within(5_000, async () => (await page(region3.edge.url, '/p/northwind-studio')).text.includes(during));
    } finally {
      region3.link.restore();
      reading = false;
      await reader;
    }
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it('the primary lost: the operations guide’s procedure promotes region 2; readers see no error, and edits resume on the new primary at every edge', async () => {
    const statuses: number[] = [];
    let reading = true;
    const readers = world.regions.map(async (region) => {
      while (reading) {
        statuses.push((await page(region.edge.url, '/p/layla')).status);
        await new Promise((r) => setTimeout(r, 25));
      }
    });
    try {
      await world.promote(2);
      const marker = `Written on the new primary ${Date.now()}`;
      await world.write('UPDATE profiles SET bio = $1 WHERE slug = $2', [marker, 'layla']);
      for (const region of world.regions)
        await within(10_000, async () => (await page(region.edge.url, '/p/layla')).text.includes(marker));
    } finally {
      reading = false;
      await Promise.all(readers);
    }
    expect(statuses.length).toBeGreaterThan(30);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });
});
