// The official MCP conformance suite against the real server on 127.0.0.1.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

/** The scenarios the active suite must pass (with at least one check each), never listed as expected failures. */
const REQUIRED = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'completion-complete',
  'dns-rebinding-protection',
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Runs the suite as its own process; asynchronously, since the server under test shares this event loop. */
function conformance(...args: string[]): Promise<{ status: number; out: string }> {
  const argv = ['server', '--url', `${server.url}/mcp`, '-o', temporaryFolder('conformance-'), ...args];
  return new Promise((resolve) => {
    // The 0.1 suite (the 2025-11-25 revision) by its own path: the 0.2 suite's package has a bin of the same name.
    execFile(
      process.execPath,
      [join(projectRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'), ...argv],
      { timeout: 120_000 },
      (error, stdout, stderr) => {
        resolve({ status: error ? Number(error.code ?? 1) : 0, out: stdout + stderr });
      },
    );
  });
}

/** The 0.2 suite (the 2026-07-28 revision), installed as @modelcontextprotocol/conformance-next. */
function conformanceNext(...args: string[]): Promise<{ status: number; out: string; results: string }> {
  const results = temporaryFolder('conformance-next-');
  const argv = ['server', '--url', `${server.url}/mcp`, '-o', results, ...args];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(projectRoot, 'node_modules/@modelcontextprotocol/conformance-next/dist/index.js'), ...argv],
      { timeout: 240_000 },
      (error, stdout, stderr) => {
        resolve({ status: error ? Number(error.code ?? 1) : 0, out: stdout + stderr, results });
      },
    );
  });
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

/** The checks one scenario's run wrote (the suite writes `{scenario}-{time}/checks.json` under its output folder). */
function checksOf(results: string): Check[] {
  return readdirSync(results).flatMap(
    (dir) => JSON.parse(readFileSync(join(results, dir, 'checks.json'), 'utf8')) as Check[],
  );
}

describe('MCP conformance suite', () => {
  it('passes the active suite, failing only the scenarios listed (with reasons) in mcp-expected-failures.yml', async () => {
    const { status, out } = await conformance(
      '--expected-failures',
      join(projectRoot, 'test/conformance/mcp-expected-failures.yml'),
    );
    expect(status, out).toBe(0);
    for (const scenario of REQUIRED) {
      expect(out, scenario).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
    }
  });

  it('the 0.2 suite with --requirements 2026-07-28 passes, failing only the scenarios listed (with reasons)', async () => {
    const { status, out } = await conformanceNext(
      '--requirements',
      '2026-07-28',
      '--expected-failures',
      join(projectRoot, 'test/conformance/mcp-expected-failures-2026.yml'),
    );
    expect(status, out).toBe(0);
    for (const scenario of [
      'tools-list',
      'resources-list',
      'completion-complete',
      'sep-2164-resource-not-found',
      'dns-rebinding-protection',
      'http-header-validation',
    ]) {
      expect(out, scenario).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
    }
  });

  // server-stateless mixes checks that apply to every server with checks that call the suite's diagnostic tools. The
  // scenario as a whole is an expected failure, so each of its checks is judged here: only the checks listed (one
  // reason each) may fail, and none may warn. A capability advertised and not served fails here.
  it('server-stateless (2026-07-28): every check that applies passes; no capability is advertised that is not served', async () => {
    const { results, out } = await conformanceNext('--scenario', 'server-stateless');
    const allowed = (
      parse(readFileSync(join(projectRoot, 'test/conformance/mcp-expected-check-failures-2026.yml'), 'utf8')) as {
        'server-stateless': string[];
      }
    )['server-stateless'];
    const checks = checksOf(results);
    expect(checks.length, out).toBeGreaterThan(20);
    const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    expect(failed.filter((c) => !allowed.includes(c.id)).map((c) => `${c.status} ${c.id}: ${c.errorMessage}`)).toEqual(
      [],
    );
    // Each allowed failure is a diagnostic tool the suite brings, never something this server claims to do.
    for (const c of failed) expect(c.errorMessage, c.id).toMatch(/does not list the diagnostic tool/);
  });
});
