// An outside yardstick for the edge (issue 29): the HTTP caching test suite of the http-tests project (npm
// `http-cache-tests`, the suite behind cache-tests.fyi) run against Varnish with the project's VCL (deploy/edge.vcl)
// in front of the suite's own origin server. Its results are not a conformance score (the suite says so); they say
// which behaviours of HTTP caching (RFC 9111) the edge has, for the regions bench's report.
import { UNLIMITED_CLIENT } from '../front-config.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runEdge } from '../edge.ts';
import { projectRoot } from '../ensure-build.ts';
import { freePort } from '../sidecar-process.ts';

const SUITE = join(projectRoot, 'node_modules', 'http-cache-tests');

export interface CacheTestsSummary {
  version: string;
  total: number;
  passed: number;
  /** Tests whose setup the edge refused (the suite's own server never got its configuration or request). */
  setup: number;
  /** Failed, by the suite's group of tests (its test files), with the ids. */
  failedByGroup: Record<string, string[]>;
}

/** Runs the whole suite once through a fresh edge; every child is stopped when it returns. */
export async function cacheTests(scratch: string): Promise<CacheTestsSummary> {
  const version = (JSON.parse(readFileSync(join(SUITE, 'package.json'), 'utf8')) as { version: string }).version;
  const port = await freePort();
  const env = {
    ...process.env,
    npm_config_protocol: 'http',
    npm_config_port: String(port),
    npm_config_pidfile: join(mkdtempSync(join(scratch, 'cache-tests-')), 'server.pid'),
  };
  const server = spawn(process.execPath, [join(SUITE, 'server/server.mjs')], {
    cwd: SUITE,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stderr?.resume();
  await new Promise<void>((resolve, reject) => {
    server.stdout?.on('data', (d: Buffer) => String(d).includes('Listening') && resolve());
    server.once('exit', (code) => reject(new Error(`the http-cache-tests server exited (${code})`)));
  });
  server.stdout?.resume();
  // The suite's origin has no /health: the edge probes its root instead.
  const edge = await runEdge({
    listen: `127.0.0.1:${await freePort()}`,
    backend: `127.0.0.1:${port}`,
    headers: {},
    probePath: '/',
    prefix: mkdtempSync(join(scratch, 'cache-tests-edge-')),
    // The suite asks from one address, many times over: HTTP caching is measured, not one client's share.
    clientShare: UNLIMITED_CLIENT,
  });
  try {
    const cli = spawn(process.execPath, ['--no-warnings', join(SUITE, 'cli.mjs')], {
      cwd: SUITE,
      // The base without a trailing slash: the suite appends "/config/…".
      env: { ...process.env, npm_config_base: edge.url, npm_config_id: '', npm_package_config_id: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    cli.stdout?.on('data', (d: Buffer) => (out += d));
    await new Promise((resolve) => cli.once('exit', resolve));
    const results = JSON.parse(out) as Record<string, true | [string, string]>;
    const groups = (await import(join(SUITE, 'tests/index.mjs'))).default as {
      id: string;
      name: string;
      tests: { id: string }[];
    }[];
    const groupOf = new Map(groups.flatMap((g) => g.tests.map((t) => [t.id, g.name] as const)));
    const failedByGroup: Record<string, string[]> = {};
    let passed = 0;
    let setup = 0;
    for (const [id, result] of Object.entries(results)) {
      if (result === true) passed++;
      else if (result[0] === 'Setup') setup++;
      else (failedByGroup[groupOf.get(id) ?? 'Surrogate-Control'] ??= []).push(id);
    }
    return { version, total: Object.keys(results).length, passed, setup, failedByGroup };
  } finally {
    edge.varnish.kill('SIGKILL');
    server.kill('SIGKILL');
  }
}
