// `npm run bench -- --hot-path [--baseline REV] [--duration S]`: the answers every reader takes (a static article, its
// Markdown twin, a cached live profile, /health), served by this code and by the code at REV (default 60ea353, before
// issue 27's round), side by side in one run on one machine: each sidecar started as `npm run serve` starts it over
// the same demo database, pinned to the first CPU, wrk (Debian's, one thread) pinned to the second, against each in
// turn, five rounds alternating, so that what the machine does meanwhile falls on both; the median of each. REV is
// checked out in a scratch worktree (its own build; this checkout's node_modules). Writes docs/benchmarks/hot-path.md.
import { spawn, spawnSync } from 'node:child_process';
import { writeRecord } from './records.ts';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../sidecar/config.ts';
import { ensureBuildSync, projectRoot } from '../ensure-build.ts';
import { freePort, serveFlags } from '../sidecar-process.ts';
import { baseEnv, demoDatabase, LOAD_GENERATOR_ENV, scratch, track, worktreeAt } from './harness.ts';
import { fmt, median } from './numbers.ts';

const ROUNDS = 5;
import { wrk } from './wrk.ts';

interface Route {
  name: string;
  path: string;
  headers?: Record<string, string>;
}

const ROUTES: Route[] = [
  { name: 'Static article (HTML)', path: '/en/blog/qr-or-nfc-business-card' },
  {
    name: 'Its Markdown twin (Accept: text/markdown)',
    path: '/en/blog/qr-or-nfc-business-card',
    headers: { Accept: 'text/markdown' },
  },
  { name: 'Cached live profile', path: '/p/layla' },
  {
    name: 'Cached live profile, brotli (a browser)',
    path: '/p/layla',
    headers: { 'Accept-Encoding': 'gzip, deflate, br' },
  },
  { name: '/health', path: '/health' },
];

/** The code at `rev` in a worktree of its own, built: its sidecar's entry point. */
function checkout(rev: string): string {
  const dir = worktreeAt(rev, 'baseline');
  const build = spawnSync(join(dir, 'node_modules', '.bin', 'astro'), ['build'], {
    cwd: dir,
    env: baseEnv({}),
    stdio: 'ignore',
  });
  if (build.status !== 0) throw new Error(`building ${rev} failed`);
  return join(dir, 'sidecar', 'server.ts');
}

/** CPU nanoseconds the event loop's thread (the process's main thread) has used so far. */
const loopNs = (pid: number) => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);

/** A sidecar of the code at `entry`, as `npm run serve` starts it, on the first CPU. */
async function startAt(entry: string, databasePath: string): Promise<{ url: string; pid: number }> {
  const port = await freePort();
  const child = track(
    spawn('taskset', ['-c', '0', process.execPath, ...serveFlags, entry], {
      env: baseEnv({
        PORT: String(port),
        BASE_URL: 'http://localhost:8080',
        DATABASE_PATH: databasePath,
        ...LOAD_GENERATOR_ENV,
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d) => ((out += d), out.includes('Serving') && resolve()));
    child.once('exit', (code) => reject(new Error(`the sidecar at ${entry} exited (${code}): ${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid ?? 0 };
}

export async function hotPathBench(options: { seconds: number; baseline?: string | undefined }): Promise<void> {
  const rev = options.baseline ?? '60ea353';
  ensureBuildSync(loadConfig({}), baseEnv({}));
  console.log(`Checking out and building ${rev}…`);
  const baselineEntry = checkout(rev);
  const db = await demoDatabase();
  const ours = await startAt(join(projectRoot, 'sidecar', 'server.ts'), db);
  const theirs = await startAt(baselineEntry, db);
  const sides = [
    ['this code', ours],
    [rev, theirs],
  ] as const;
  // Warm both: every route once (the live page rendered and kept, compressed forms made).
  for (const [, { url }] of sides)
    for (const r of ROUTES) await (await fetch(url + r.path, r.headers ? { headers: r.headers } : {})).arrayBuffer();
  const rps: Record<string, Record<string, number[]>> = {};
  const usPerAnswer: Record<string, Record<string, number[]>> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of ROUTES) {
      for (const [name, { url, pid }] of round % 2 === 0 ? sides : [...sides].reverse()) {
        const before = loopNs(pid);
        const result = await wrk(
          url + r.path,
          {
            connections: 50,
            threads: 1,
            seconds: options.seconds,
            cpu: 1,
            ...(r.headers ? { headers: r.headers } : {}),
          },
          scratch,
        );
        const us = (loopNs(pid) - before) / 1000 / Math.max(1, result.requests);
        ((rps[r.name] ??= {})[name] ??= []).push(result.rps);
        ((usPerAnswer[r.name] ??= {})[name] ??= []).push(us);
        console.log(`  ${r.name}, ${name}: ${fmt(result.rps)} req/s, ${fmt(us, 1)} µs of the event loop an answer`);
      }
    }
  }
  const lines = [
    '# The hot path against an earlier revision',
    '',
    `Produced by \`npm run bench -- --hot-path --baseline ${rev} --duration ${options.seconds}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${fmt(totalmem() / 2 ** 30)} GiB, Node ${process.version}. Both sidecars as \`npm run serve\` starts them (pinned to CPU 0), over the same demo database, warmed; \`wrk -t1 -c50 -d${options.seconds}s\` (pinned to CPU 1) against each in turn, ${ROUNDS} rounds alternating; the median (issue 36, item 8: every cached answer had got 15–25% slower than at 60ea353).`,
    '',
    `The event loop's CPU an answer (its thread's time over the run, from /proc, divided by the answers wrk counted) is the steadier measure on a machine that others share; requests per second follow it.`,
    '',
    `| Answer | This code: µs of the loop an answer | ${rev} | This code / ${rev} | This code: median req/s (all rounds) | ${rev}: median req/s (all rounds) |`,
    '|---|---:|---:|---:|---:|---:|',
    ...ROUTES.map((r) => {
      const a = rps[r.name]!['this code']!;
      const b = rps[r.name]![rev]!;
      const ua = median(usPerAnswer[r.name]!['this code']!);
      const ub = median(usPerAnswer[r.name]![rev]!);
      return `| ${r.name} | ${fmt(ua, 1)} | ${fmt(ub, 1)} | ${fmt(ua / ub, 2)} | ${fmt(median(a))} (${a.map((v) => fmt(v)).join(', ')}) | ${fmt(median(b))} (${b.map((v) => fmt(v)).join(', ')}) |`;
    }),
    '',
  ];
  writeRecord('hot-path.md', lines.join('\n'));
  console.log('\n' + lines.join('\n'));
}
