// `npm run bench -- --hot-path [--baseline REV] [--duration S]`: the answers every reader takes (a static article, its
// Markdown twin, a cached live profile, /health), served by this code and by the code at REV (default 60ea353, before
// issue 27's round), side by side in one run on one machine: each sidecar started as `npm run serve` starts it over
// the same demo database, wrk (Debian's) against each in turn, two rounds, alternating, so that what the machine does
// meanwhile falls on both. REV is checked out in a scratch worktree (its own build; this checkout's node_modules).
// Writes BENCHMARKS.hot-path.md.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../sidecar/config.ts';
import { ensureBuild, projectRoot } from '../ensure-build.ts';
import { freePort, serveFlags } from '../sidecar-process.ts';
import { baseEnv, demoDatabase, scratch, startSidecar, track } from './harness.ts';
import { fmt } from './numbers.ts';
import { wrk } from './wrk.ts';

interface Route {
  name: string;
  path: string;
  headers?: Record<string, string>;
}

const ROUTES: Route[] = [
  { name: 'Static article (HTML)', path: '/en/blog/qr-or-nfc-business-card' },
  { name: 'Its Markdown twin (Accept: text/markdown)', path: '/en/blog/qr-or-nfc-business-card', headers: { Accept: 'text/markdown' } },
  { name: 'Cached live profile', path: '/p/layla' },
  { name: 'Cached live profile, brotli (a browser)', path: '/p/layla', headers: { 'Accept-Encoding': 'gzip, deflate, br' } },
  { name: '/health', path: '/health' },
];

/** The code at `rev` in a worktree of its own, built: its sidecar's entry point. */
function checkout(rev: string): string {
  const dir = join(scratch, 'baseline');
  execFileSync('git', ['-C', projectRoot, 'worktree', 'add', '--detach', '--force', dir, rev], { stdio: 'ignore' });
  process.on('exit', () => spawnSync('git', ['-C', projectRoot, 'worktree', 'remove', '--force', dir]));
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  const build = spawnSync(join(dir, 'node_modules', '.bin', 'astro'), ['build'], { cwd: dir, env: baseEnv({}), stdio: 'ignore' });
  if (build.status !== 0) throw new Error(`building ${rev} failed`);
  return join(dir, 'sidecar', 'server.ts');
}

/** A sidecar of the code at `entry`, as `npm run serve` starts it. */
async function startAt(entry: string, databasePath: string): Promise<string> {
  const port = await freePort();
  const child = track(spawn(process.execPath, [...serveFlags, entry], { env: baseEnv({ PORT: String(port), BASE_URL: 'http://localhost:8080', DATABASE_PATH: databasePath }), stdio: ['ignore', 'pipe', 'pipe'] }));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d) => ((out += d), out.includes('Serving') && resolve()));
    child.once('exit', (code) => reject(new Error(`the baseline sidecar exited (${code}): ${out}`)));
  });
  return `http://127.0.0.1:${port}`;
}

export async function hotPathBench(options: { seconds: number; baseline?: string | undefined }): Promise<void> {
  const rev = options.baseline ?? '60ea353';
  ensureBuild(loadConfig({}), baseEnv({}));
  console.log(`Checking out and building ${rev}…`);
  const baselineEntry = checkout(rev);
  const db = demoDatabase();
  const ours = (await startSidecar(db)).url;
  const theirs = await startAt(baselineEntry, db);
  const sides = [
    ['this code', ours],
    [rev, theirs],
  ] as const;
  // Warm both: every route once (the live page rendered and kept, compressed forms made).
  for (const [, url] of sides) for (const r of ROUTES) await (await fetch(url + r.path, r.headers ? { headers: r.headers } : {})).arrayBuffer();
  const rps: Record<string, Record<string, number[]>> = {};
  for (let round = 0; round < 2; round++) {
    for (const r of ROUTES) {
      for (const [name, url] of round === 0 ? sides : [...sides].reverse()) {
        const result = await wrk(url + r.path, { connections: 50, threads: 2, seconds: options.seconds, ...(r.headers ? { headers: r.headers } : {}) }, scratch);
        ((rps[r.name] ??= {})[name] ??= []).push(result.rps);
        console.log(`  ${r.name}, ${name}: ${fmt(result.rps)} req/s`);
      }
    }
  }
  const lines = [
    '# The hot path against an earlier revision',
    '',
    `Produced by \`npm run bench -- --hot-path --baseline ${rev} --duration ${options.seconds}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${fmt(totalmem() / 2 ** 30)} GiB, Node ${process.version}. Both sidecars as \`npm run serve\` starts them, over the same demo database, warmed; \`wrk -t2 -c50 -d${options.seconds}s\` against each in turn, two rounds alternating (issue 36, item 8: every cached answer had got 15–25% slower than at 60ea353).`,
    '',
    `| Answer | This code: req/s (two rounds) | ${rev}: req/s (two rounds) | This code / ${rev} |`,
    '|---|---:|---:|---:|',
    ...ROUTES.map((r) => {
      const a = rps[r.name]!['this code']!;
      const b = rps[r.name]![rev]!;
      const mean = (v: number[]) => v.reduce((x, y) => x + y, 0) / v.length;
      return `| ${r.name} | ${a.map((v) => fmt(v)).join(', ')} | ${b.map((v) => fmt(v)).join(', ')} | ${fmt(mean(a) / mean(b), 2)} |`;
    }),
    '',
  ];
  writeFileSync(join(projectRoot, 'BENCHMARKS.hot-path.md'), lines.join('\n'));
  console.log('\n' + lines.join('\n'));
}
