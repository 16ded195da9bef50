// The official MCP conformance suite against the real server on 127.0.0.1.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const REQUIRED = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'completion-complete', 'dns-rebinding-protection'];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Runs the suite as its own process; asynchronously, since the server under test shares this event loop. */
function conformance(...args: string[]): Promise<{ status: number; out: string }> {
  const argv = ['server', '--url', `${server.url}/mcp`, '-o', mkdtempSync(join(tmpdir(), 'conformance-')), ...args];
  return new Promise((resolve) => {
    // The 0.1 suite (the 2025-11-25 revision) by its own path: the 0.2 suite's package has a bin of the same name.
    execFile(process.execPath, [join(projectRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'), ...argv], { timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ status: error ? Number(error.code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

/** The 0.2 suite (the 2026-07-28 revision), installed as @modelcontextprotocol/conformance-next. */
function conformanceNext(...args: string[]): Promise<{ status: number; out: string }> {
  const argv = ['server', '--url', `${server.url}/mcp`, '-o', mkdtempSync(join(tmpdir(), 'conformance-next-')), ...args];
  return new Promise((resolve) => {
    execFile(process.execPath, [join(projectRoot, 'node_modules/@modelcontextprotocol/conformance-next/dist/index.js'), ...argv], { timeout: 240_000 }, (error, stdout, stderr) => {
      resolve({ status: error ? Number(error.code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

describe('MCP conformance suite', () => {
  it('passes the active suite, failing only the scenarios listed (with reasons) in mcp-expected-failures.yml', async () => {
    const { status, out } = await conformance('--expected-failures', join(projectRoot, 'test/conformance/mcp-expected-failures.yml'));
    expect(status, out).toBe(0);
    for (const scenario of REQUIRED) {
      expect(out, scenario).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
    }
  });

  it('the 0.2 suite with --requirements 2026-07-28 passes, failing only the scenarios listed (with reasons)', async () => {
    const { status, out } = await conformanceNext('--requirements', '2026-07-28', '--expected-failures', join(projectRoot, 'test/conformance/mcp-expected-failures-2026.yml'));
    expect(status, out).toBe(0);
    for (const scenario of ['tools-list', 'resources-list', 'completion-complete', 'sep-2164-resource-not-found', 'dns-rebinding-protection', 'http-header-validation']) {
      expect(out, scenario).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
    }
  });

  it.each(REQUIRED)('%s passes on its own', async (scenario) => {
    const { status, out } = await conformance('--scenario', scenario);
    expect(status, out).toBe(0);
    expect(out).toMatch(/Passed: ([1-9]\d*)\/\1, 0 failed/);
  });
});
