import { defineConfig } from 'vitest/config';

/** The suites that ask a served site: run again, unchanged, on each backend and deployment shape below. */
const SERVED_SUITES = ['test/http/site.test.ts', 'test/http/live.test.ts', 'test/http/bad-input.test.ts', 'test/http/hostile-content.test.ts', 'test/http/surface.test.ts', 'test/http/compression.test.ts', 'test/http/agents.test.ts', 'test/mcp/*.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: the browser and validator suites each start their own heavy process.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'all', include: ['test/**/*.test.ts'] } },
      {
        // The HTTP and MCP suites again, each server reading a database file that it cannot write, nor create a
        // file beside (chmod, and chattr +i for root): the server never writes.
        extends: true,
        test: {
          name: 'read-only database',
          include: SERVED_SUITES,
          env: { BIO_TEST_READONLY_DB: '1' },
        },
      },
      {
        // The HTTP and MCP suites again, unchanged, against PostgreSQL: each server reads a database of its own
        // (the same rows) from a streaming hot standby, with the read-only role.
        extends: true,
        test: {
          name: 'postgres standby',
          include: SERVED_SUITES,
          env: { BIO_TEST_POSTGRES: '1' },
        },
      },
      {
        // The HTTP and MCP suites again, unchanged, through the production shape: nginx (deploy/nginx.conf) serving
        // dist/client over two sidecars in front mode. Plus the front's own tests (failover, imports, sidecars down).
        extends: true,
        test: {
          name: 'through the front',
          include: [...SERVED_SUITES, 'test/front/*.test.ts'],
          env: { BIO_TEST_FRONT: '1' },
        },
      },
      {
        // The HTTP and MCP suites again, unchanged, through the edge: Varnish (deploy/edge.vcl) in front of a sidecar,
        // with the purger following the database, on a SQLite file and on a PostgreSQL standby.
        extends: true,
        test: {
          name: 'through the edge',
          include: SERVED_SUITES,
          env: { BIO_TEST_EDGE: '1' },
        },
      },
      {
        extends: true,
        test: {
          name: 'through the edge on PostgreSQL',
          include: SERVED_SUITES,
          env: { BIO_TEST_EDGE: '1', BIO_TEST_POSTGRES: '1' },
        },
      },
    ],
  },
});
