// The project's own adversary (scripts/fuzz, issue 27), bounded for CI: requests drawn from the surface declaration and
// the MCP schemas, sent to a sidecar process as production runs it (`npm run serve`'s heap cap) over a database large
// enough for a sitemap index, on SQLite and on a PostgreSQL standby. A fixed seed, so a failure here fails the same way
// on every machine; the report names the seed and the smallest request that fails. `npm run bench -- --fuzz` runs
// longer, from a new seed each time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzz, LOOP_HOLD_LIMIT_MS, valuesOf } from '../../scripts/fuzz/fuzz.ts';
import { freePort, type SidecarProcess } from '../../scripts/sidecar-process.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';
import { demoData } from '../helpers/database.ts';
import { largeDatabase } from '../helpers/large-database.ts';

const SEED = 20_261_124;
const RUNS = 400;

describe.each(['sqlite', 'postgres'] as const)('the fuzzer on %s', (backend) => {
  let sidecar: SidecarProcess;
  let metricsUrl: string;
  let exited: string | undefined;

  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    sidecar = await spawnTestSidecar({
      ...(await largeDatabase(backend)),
      METRICS_LISTEN: `127.0.0.1:${port}`,
      MCP_RATE_LIMIT: '1000000',
    });
    sidecar.child.once('exit', (code, signal) => (exited = `exit ${code ?? signal}: ${sidecar.output()}`));
  });
  afterAll(() => void sidecar?.child.kill('SIGKILL'));

  it(`${RUNS} requests: no 5xx but a declared 503, no redirect to itself, every answer as the OpenAPI document says, none holding the event loop past ${LOOP_HOLD_LIMIT_MS} ms, the server up and its heap flat`, async () => {
    const report = await fuzz(
      { url: sidecar.url, metricsUrl, exited: () => exited, values: valuesOf(demoData) },
      { numRuns: RUNS, seed: SEED, loopHoldLimitMs: LOOP_HOLD_LIMIT_MS },
    );
    expect(report.failure, report.failure).toBeUndefined();
    expect(report.runs).toBe(RUNS);
    // The draw reaches the answers that matter, not only refusals.
    for (const status of ['200', '404'])
      expect(report.statuses[status] ?? 0, JSON.stringify(report.statuses)).toBeGreaterThan(RUNS / 20);
    expect((await fetch(sidecar.url + '/health')).status).toBe(200);
  });
});
