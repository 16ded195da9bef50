// `npm run bench -- --fuzz [--runs N] [--seed N]`: the project's fuzzer (scripts/fuzz) for far longer than CI runs it,
// from a new seed each time (printed first, so that any failure can be run again with --seed), against a sidecar
// process as production runs it over 60,000 profiles and the demo data, on SQLite and on a PostgreSQL standby.
// Writes docs/benchmarks/fuzz.md; fails when it finds something.
import { readFileSync } from 'node:fs';
import { writeRecord } from './records.ts';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../sidecar/config.ts';
import { fuzz, LOOP_HOLD_LIMIT_MS, valuesOf, type FuzzReport } from '../fuzz/fuzz.ts';
import { ensureBuildSync, projectRoot } from '../ensure-build.ts';
import { freePort } from '../sidecar-process.ts';
import { postgresBackend, sqliteBackend, type Backend } from './data-tier.ts';
import { baseEnv, scratch, startSidecar } from './harness.ts';
import { fmt } from './numbers.ts';

const PROFILES = 60_000;

export async function fuzzBench(options: { runs?: number | undefined; seed?: number | undefined }): Promise<boolean> {
  const runs = options.runs ?? 5000;
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  console.log(
    `Fuzzing with seed ${seed}, ${fmt(runs)} requests a backend (again: npm run bench -- --fuzz --seed ${seed} --runs ${runs})`,
  );
  ensureBuildSync(loadConfig({}), baseEnv({}));
  const demo = JSON.parse(readFileSync(join(projectRoot, 'scripts/demo-data.json'), 'utf8')) as unknown;
  const reports: { backend: string; report: FuzzReport; seconds: number }[] = [];
  const pg = await postgresBackend();
  try {
    for (const backend of [sqliteBackend(scratch), pg] as Backend[]) {
      const db = await backend.prepare(PROFILES, demo);
      const metrics = await freePort();
      const sidecar = await startSidecar('', { ...db.env, METRICS_LISTEN: `127.0.0.1:${metrics}` });
      let exited: string | undefined;
      sidecar.child.once('exit', (code, signal) => (exited = `exit ${code ?? signal}`));
      const started = performance.now();
      const report = await fuzz(
        {
          url: sidecar.url,
          metricsUrl: `http://127.0.0.1:${metrics}/metrics`,
          exited: () => exited,
          values: valuesOf(demo),
        },
        { numRuns: runs, seed, loopHoldLimitMs: LOOP_HOLD_LIMIT_MS },
      );
      reports.push({ backend: backend.name, report, seconds: (performance.now() - started) / 1000 });
      console.log(
        `${backend.name}: ${report.failure ? `FAILED\n${report.failure}` : `${fmt(report.runs)} requests, nothing found`}`,
      );
      sidecar.child.kill('SIGKILL');
      await db.close();
    }
  } finally {
    await pg.stop();
  }
  const statuses = [...new Set(reports.flatMap((r) => Object.keys(r.report.statuses)))].sort();
  const mb = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : fmt(bytes / 2 ** 20, 1));
  const lines = [
    '# The fuzzer, long',
    '',
    `Produced by \`npm run bench -- --fuzz --seed ${seed} --runs ${runs}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}. Requests drawn by scripts/fuzz/requests.ts from the surface declaration and the MCP schemas, each answer held to scripts/fuzz/fuzz.ts's rules (no 5xx but a declared 503, no redirect to itself, the security headers, what the served OpenAPI document declares, no request holding the event loop past ${LOOP_HOLD_LIMIT_MS} ms, the server up, its heap flat), against a sidecar process (\`npm run serve\`'s heap cap) over ${fmt(PROFILES)} profiles and the demo data. CI runs 400 a backend with a fixed seed (test/faults/fuzz.test.ts).`,
    '',
    `| Backend | Requests | Found | Seconds | Heap low point, early → late (MB) | Loop held at most (ms) | ${statuses.join(' | ')} |`,
    `|---|---:|---|---:|---:|---:|${statuses.map(() => '---:').join('|')}|`,
    ...reports.map(
      ({ backend, report, seconds }) =>
        `| ${backend} | ${fmt(report.runs)} | ${report.failure ? '**a failure** (below)' : 'nothing'} | ${fmt(seconds, 1)} | ${mb(report.heap?.early)} → ${mb(report.heap?.late)} | ${fmt(report.longestHolds?.[0]?.ms ?? NaN, 1)} | ${statuses.map((s) => fmt(report.statuses[s] ?? 0)).join(' | ')} |`,
    ),
    '',
    'The requests that held the event loop longest:',
    '',
    ...reports.flatMap(({ backend, report }) =>
      (report.longestHolds ?? [])
        .slice(0, 3)
        .map((h) => `- ${backend.split(' (')[0]}: ${fmt(h.ms, 1)} ms, \`${h.request.replaceAll('`', "'")}\``),
    ),
    '',
    ...reports
      .filter((r) => r.report.failure)
      .flatMap((r) => [`## ${r.backend}`, '', '```', r.report.failure!.split('\n    at ')[0]!, '```', '']),
  ];
  writeRecord('fuzz.md', lines.join('\n'));
  console.log('\n' + lines.join('\n'));
  return reports.every((r) => !r.report.failure);
}
