// A request followed through the front (issue 64): nginx makes its id (a client's own is not believed), returns it in
// X-Request-Id on what it answers itself and sends it to the sidecar, which keeps it; the access log is one JSON line a
// request with that id and the sidecar's share of the time; refused requests are sampled, not one line each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRONT_LIMITS, runFront } from '../../scripts/front-config.ts';
import { freePort, type SidecarProcess } from '../../scripts/sidecar-process.ts';
import { createDatabase } from '../helpers/database.ts';
import { testConfig } from '../helpers/env.ts';
import { stopNginx } from '../helpers/front.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

interface Logged {
  request_id: string;
  uri: string;
  status: number;
  seconds: number;
  upstream: string;
  upstream_seconds: string;
}

describe('a request id through the front (issue 64)', () => {
  let sidecar: SidecarProcess;
  let front: Awaited<ReturnType<typeof runFront>>;
  let accessLog: string;
  beforeAll(async () => {
    sidecar = await spawnTestSidecar({
      DATABASE_PATH: await createDatabase(),
      STATIC_FILES: 'front',
      TRUST_PROXY: '127.0.0.1',
    });
    const prefix = temporaryFolder('bio-front-');
    accessLog = join(prefix, 'access.log');
    front = await runFront({
      config: testConfig,
      sidecars: [sidecar.address],
      prefix,
      port: await freePort(),
      accessLog,
    });
  }, 120_000);
  afterAll(async () => {
    if (front) await stopNginx(front.nginx);
    sidecar?.child.kill('SIGKILL');
  });
  const logged = () =>
    readFileSync(accessLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Logged);

  it("is made here, returned on static and live answers alike, kept by the sidecar, and in the access log's JSON line", async () => {
    const forged = { 'x-request-id': 'forged-by-a-client' };
    const page = await fetch(`${front.url}/en/blog`, { headers: forged });
    const live = await fetch(`${front.url}/p/layla`, { headers: forged });
    const missing = await fetch(`${front.url}/missing/page`, { headers: forged });
    for (const res of [page, live, missing]) await res.arrayBuffer();
    const ids = [page, live, missing].map((res) => res.headers.get('x-request-id') ?? '');
    for (const id of ids) expect(id).toMatch(/^[\da-f]{32}$/);
    expect(new Set(ids).size).toBe(3);
    // The live answer is the sidecar's: its id is the one the front sent it.
    await expect.poll(() => logged().length).toBeGreaterThanOrEqual(3);
    const lines = logged();
    const line = (id: string) => lines.find((l) => l.request_id === id);
    expect(line(ids[0]!)).toMatchObject({ uri: '/en/blog', status: 200, upstream: '' });
    expect(line(ids[1]!)).toMatchObject({ uri: '/p/layla', status: 200, upstream: sidecar.address });
    expect(Number(line(ids[1]!)!.upstream_seconds)).toBeGreaterThanOrEqual(0);
    expect(line(ids[2]!)).toMatchObject({ uri: '/missing/page', status: 404 });
  });

  it('logs refused requests one in 256, not one line each', async () => {
    const before = logged().length;
    const sent = FRONT_LIMITS.everyBurst * 8;
    let refused = 0;
    for (let batch = 0; batch < sent / 100; batch++)
      for (const res of await Promise.all(Array.from({ length: 100 }, () => fetch(`${front.url}/robots.txt`)))) {
        await res.arrayBuffer();
        if (res.status === 429) refused++;
      }
    expect(refused).toBeGreaterThan(sent / 2);
    await new Promise((r) => setTimeout(r, 200));
    const refusedLines = logged()
      .slice(before)
      .filter((l) => l.status === 429).length;
    // One in 256 on average: far under a tenth of them, whatever the draw.
    expect(refusedLines).toBeLessThan(refused / 10);
    expect(logged().length - before - refusedLines).toBe(sent - refused);
  });
});
