import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Node's compile cache (V8's code for each module, kept on disk) for every process the run starts and every thread they
// start: the sidecars of each suite, their render threads loading Astro (a second of CPU each, 20% less with the
// cache), the builds of scratch copies. They load the same modules a hundred times over.
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, 'node_modules', '.cache', 'node-compile-cache');

// Tiers, each runnable alone (`npx vitest run --project NAME`; docs/testing.md says what each takes and proves). Only
// the projects of a run do their global setup: the unit tier needs none, so one unit file runs in a second or two.
const BUILD = 'test/setup/build.ts';
const POSTGRES = 'test/setup/postgres.ts';

/** The suites that ask a served site: run again, unchanged, on each backend and deployment shape below. */
const SERVED_SUITES = [
  'test/http/site.test.ts',
  'test/http/live.test.ts',
  'test/http/languages.test.ts',
  'test/http/themes.test.ts',
  'test/http/sections.test.ts',
  'test/http/bad-input.test.ts',
  'test/http/hostile-content.test.ts',
  'test/http/surface.test.ts',
  'test/http/compression.test.ts',
  'test/http/agents.test.ts',
  'test/http/owner-domains.test.ts',
  'test/mcp/*.test.ts',
];

/** A deployment shape: the served suites again, with the environment that puts the shape in front of them. */
const shape = (name: string, env: Record<string, string>, include: string[] = SERVED_SUITES) => ({
  extends: true as const,
  test: { name, include, env, globalSetup: env.BIO_TEST_POSTGRES ? [BUILD, POSTGRES] : [BUILD], isolate: false },
});

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores, both busy from the first test to the last (docs/testing.md, measured with perf). Three workers took CI
    // from 487 s to 647 s, and timing-sensitive suites failed.
    maxWorkers: 2,
    projects: [
      // Pure modules and in-process apps (app.inject): no build, no database server, no browser.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      // The build itself and copies of the project built with faults.
      { extends: true, test: { name: 'build', include: ['test/build/**/*.test.ts'], globalSetup: [BUILD] } },
      // The release (#50): its folder started with nothing of the machine's, its image run by podman, the Kubernetes
      // manifests played by podman (`npx vitest run --project release`).
      {
        extends: true,
        test: {
          name: 'release',
          include: ['test/release/**/*.test.ts'],
          globalSetup: [BUILD, 'test/setup/release.ts'],
        },
      },
      // Chromium (Debian's, through playwright-core) on the served site.
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'], globalSetup: [BUILD] } },
      // A real sidecar on 127.0.0.1 over a SQLite file (and, where a suite says so, a PostgreSQL standby): HTTP, MCP,
      // validators, faults, the data tier and the regions; the edge's and the front's own promises are in their shapes.
      {
        extends: true,
        test: {
          name: 'served',
          include: ['test/{http,mcp,conformance,faults,edge,store,postgres,regions}/**/*.test.ts'],
          exclude: SERVED_SUITES,
          globalSetup: [BUILD, POSTGRES],
        },
      },
      // The served suites, each server reading a database file that it cannot write, nor create a file beside (chmod,
      // and chattr +i for root): what a reader sees on SQLite, and proof that the server never writes.
      shape('read-only database', { BIO_TEST_READONLY_DB: '1' }),
      // Again through the production shape: nginx (deploy/nginx.conf) serving dist/client over two sidecars in front
      // mode. Plus the front's own tests (failover, imports, sidecars down).
      shape('through the front', { BIO_TEST_FRONT: '1' }, [...SERVED_SUITES, 'test/front/*.test.ts']),
      // Again as a region runs: Varnish (deploy/edge.vcl) in front of a sidecar that reads a database of its own (the
      // same rows) from a streaming hot standby with the read-only role, and the purger following its change log. Every
      // answer the edge holds was first the sidecar's from PostgreSQL, so this is also the PostgreSQL backend's run (a
      // shape of the suites on a standby without Varnish asked the same rows the same questions: it was cut, #37). The
      // purger on SQLite has its own suite (test/edge/edge.test.ts, in 'served').
      shape('through the edge', { BIO_TEST_EDGE: '1', BIO_TEST_POSTGRES: '1' }),
    ],
  },
});
