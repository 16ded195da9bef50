// Operators see it (issue 20): a sidecar process serves Prometheus metrics on its internal METRICS_LISTEN address,
// never on the public port; a scrape parses, and the counters move with what the sidecar did.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type SidecarProcess } from '../../scripts/sidecar-process.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';
import { createDatabase } from '../helpers/database.ts';
import { parseMetrics, valueOf } from '../helpers/metrics.ts';
import { databaseFromSqlite } from '../helpers/postgres.ts';
import { expectedLiveness } from '../helpers/env.ts';

let sidecar: SidecarProcess;
let metricsUrl: string;
let databasePath: string;
beforeAll(async () => {
  const port = await freePort();
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const path = await createDatabase();
  databasePath = path;
  // A card another writer broke: its request fails once the route has matched.
  const db = new Database(path);
  db.prepare("UPDATE cards SET phones = 'not json' WHERE card_id = 'n0rth1'").run();
  db.close();
  sidecar = await spawnTestSidecar({ DATABASE_PATH: path, METRICS_LISTEN: `127.0.0.1:${port}` });
});
afterAll(() => void sidecar?.child.kill('SIGKILL'));

const scrape = async (url = metricsUrl) => {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return parseMetrics(await res.text());
};
const value = valueOf;

describe('metrics', () => {
  it('counts requests by route and status, live cache hits, misses and renders, and the change log', async () => {
    const before = await scrape();
    for (const path of ['/p/layla', '/p/layla', '/p/layla', '/c/k7f2q9', '/en/blog', '/p/nobody-here'])
      await (await fetch(sidecar.url + path)).arrayBuffer();
    const after = await scrape();
    expect(
      value(after, 'bio_http_requests_total', { route: '/p/{page}', status: '200' }) -
        value(before, 'bio_http_requests_total', { route: '/p/{page}', status: '200' }),
    ).toBe(3);
    expect(
      value(after, 'bio_http_requests_total', { route: '/p/{page}', status: '404' }) -
        value(before, 'bio_http_requests_total', { route: '/p/{page}', status: '404' }),
    ).toBe(1);
    expect(value(after, 'bio_http_requests_total', { route: 'static', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(value(after, 'bio_live_renders_total') - value(before, 'bio_live_renders_total')).toBe(2);
    expect(
      value(after, 'bio_live_cache_hits_total') - value(before, 'bio_live_cache_hits_total'),
    ).toBeGreaterThanOrEqual(2);
    expect(value(after, 'bio_live_cache_misses_total')).toBeGreaterThanOrEqual(2);
    expect(value(after, 'bio_change_log_position')).toBeGreaterThan(0);
    expect(after.some((m) => m.name === 'bio_change_log_lag_seconds')).toBe(true);
    expect(value(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // What runs (#50, #61): the version as package.json says, the commit and the build as /livez says them.
    const { version, revision, build } = expectedLiveness();
    expect(value(after, 'bio_build_info', { version, revision, build })).toBe(1);
  });

  it('count a request that fails (or is shed) after its route matched under that route, not as static (issue 46)', async () => {
    const before = await scrape();
    expect((await fetch(sidecar.url + '/c/n0rth1')).status).toBe(500);
    const after = await scrape();
    const counted = (labels: Record<string, string>) =>
      value(after, 'bio_http_requests_total', labels) - value(before, 'bio_http_requests_total', labels);
    expect(counted({ route: '/c/{cardId}', status: '500' })).toBe(1);
    expect(counted({ route: 'static', status: '500' })).toBe(0);
  });

  it('time requests by route in a histogram (issue 64)', async () => {
    const before = await scrape();
    for (let i = 0; i < 3; i++) await (await fetch(sidecar.url + '/c/k7f2q9')).arrayBuffer();
    const after = await scrape();
    const count = (m: typeof after) => value(m, 'bio_http_request_duration_seconds_count', { route: '/c/{cardId}' });
    expect(count(after) - count(before)).toBe(3);
    // Every request falls in the last bucket; the sum is the seconds they took.
    expect(value(after, 'bio_http_request_duration_seconds_bucket', { route: '/c/{cardId}', le: '+Inf' })).toBe(
      count(after),
    );
    expect(value(after, 'bio_http_request_duration_seconds_sum', { route: '/c/{cardId}' })).toBeGreaterThan(0);
  });

  it('say an idle sidecar is not behind its change log (issue 64: the alert fired on any idle SQLite site)', async () => {
    await (await fetch(sidecar.url + '/p/layla')).arrayBuffer();
    // Idle: no request for longer than the lag alert's threshold would allow if idleness were lag.
    await new Promise((r) => setTimeout(r, 2500));
    expect(value(await scrape(), 'bio_change_log_lag_seconds')).toBeLessThan(1);
  });

  it("say the change log's position, and the reads that found changes, after the edit a scrape has read (a reviewer saw the ones before it)", async () => {
    await (await fetch(sidecar.url + '/p/layla')).arrayBuffer();
    const scraped = await scrape();
    const before = value(scraped, 'bio_change_log_position');
    const found = value(scraped, 'bio_changes_found_total', { via: 'poll' });
    const db = new Database(databasePath);
    db.prepare("UPDATE profiles SET bio = 'Scraped after' WHERE slug = 'sam-rivera'").run();
    db.close();
    // No request of a page: the scrape is what reads the log.
    await new Promise((r) => setTimeout(r, 1200));
    const after = await scrape();
    expect(value(after, 'bio_change_log_position')).toBeGreaterThan(before);
    expect(value(after, 'bio_changes_found_total', { via: 'poll' })).toBe(found + 1);
  });

  it('are not on the public port', async () => {
    expect((await fetch(sidecar.url + '/metrics')).status).toBe(404);
  });

  it('on a PostgreSQL standby, include the replica lag and the pool', async () => {
    const port = await freePort();
    const pg = await spawnTestSidecar({
      DATABASE_URL: (await databaseFromSqlite(await createDatabase())).standby,
      METRICS_LISTEN: `127.0.0.1:${port}`,
    });
    try {
      for (let i = 0; i < 100 && (await fetch(pg.url + '/health')).status !== 200; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect((await fetch(pg.url + '/p/layla')).status).toBe(200);
      const metrics = await scrape(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.some((m) => m.name === 'bio_pg_replica_lag_seconds')).toBe(true);
      expect(value(metrics, 'bio_pg_pool_connections', { state: 'total' })).toBeGreaterThanOrEqual(1);
      expect(value(metrics, 'bio_live_renders_total')).toBe(1);
    } finally {
      pg.child.kill('SIGKILL');
    }
  });
});
