// Faults with real files and real processes: the database missing or broken, and SIGTERM under load.
import { chmodSync, copyFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createDatabase, demoData, writeDatabaseFile } from '../helpers/database.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

const status = async (server: TestServer, path: string) =>
  (await fetch(server.url + path, { redirect: 'manual' })).status;

async function mcpCall(server: TestServer, name: string, args: Record<string, unknown>) {
  const client = new Client({ name: 'faults', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url + '/mcp')));
  try {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  } finally {
    await client.close();
  }
}

async function expectDegraded(server: TestServer) {
  expect(await status(server, '/health')).toBe(503);
  expect(await status(server, '/p/layla')).toBe(503);
  expect(await status(server, '/c/k7f2q9')).toBe(503);
  for (const path of ['/', '/ar/blog', '/en/blog/qr-or-nfc-business-card', '/openapi.json', '/robots.txt'])
    expect(await status(server, path), path).toBe(200);
  // Tools that need no database keep working; those that do say so, as a tool error.
  expect((await mcpCall(server, 'list_blog_articles', {})).isError).toBeFalsy();
  const profile = await mcpCall(server, 'get_profile', { page: 'layla' });
  expect(profile.isError).toBe(true);
  expect((profile.content[0] as { text: string }).text).toContain('temporarily unavailable');
}

async function expectRecovered(server: TestServer) {
  await expect.poll(() => status(server, '/health'), { timeout: 3000 }).toBe(200);
  expect(await status(server, '/p/layla')).toBe(200);
}

describe('database faults', () => {
  it('missing at start: the server starts degraded, and recovers when the file appears', async () => {
    const path = join(temporaryFolder('bio-missing-'), 'bio.db');
    const server = await startTestServer({ databasePath: path });
    try {
      await expectDegraded(server);
      await writeDatabaseFile(path, demoData);
      await expectRecovered(server);
    } finally {
      await server.close();
    }
  });

  it.each([
    ['truncated to its first page', (path: string) => truncateSync(path, 4096)],
    ['truncated to half', (path: string) => truncateSync(path, Math.floor(readFileSync(path).length / 2))],
    ['overwritten with zeros', (path: string) => writeFileSync(path, Buffer.alloc(readFileSync(path).length))],
    ['emptied', (path: string) => writeFileSync(path, '')],
  ])('%s: degraded, never crashing, and recovered when a good file is back', async (_name, damage) => {
    const path = await createDatabase();
    const good = `${path}.good`;
    copyFileSync(path, good);
    const server = await startTestServer({ databasePath: path });
    try {
      expect(await status(server, '/p/layla')).toBe(200);
      damage(path);
      await expectDegraded(server);
      copyFileSync(good, path);
      await expectRecovered(server);
    } finally {
      await server.close();
    }
  });
});

describe('a database made unreadable', () => {
  // Root reads whatever the mode says, so the server runs without the capabilities that allow it (as the same user:
  // another user could not reach a clone in a mode-700 folder).
  it('chmod 000: degraded (an open connection must not go on reading it), and recovered when readable again', async () => {
    const path = await createDatabase();
    const { child, url } = await spawnTestSidecar({ DATABASE_PATH: path }, { obeyFileModes: true });
    const server = { url } as TestServer;
    try {
      expect(await status(server, '/p/layla')).toBe(200);
      chmodSync(path, 0o000);
      await expectDegraded(server);
      chmodSync(path, 0o644);
      await expectRecovered(server);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('SIGTERM under load', () => {
  it('completes in-flight requests, refuses new connections cleanly and exits 0', async () => {
    const { child, port } = await spawnTestSidecar({ DATABASE_PATH: await createDatabase() });
    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      child.once('exit', (code) => resolve({ code, at: Date.now() })),
    );

    const outcomes = { ok: 0, closing503: 0, refused: 0, closedIdle: 0, other: [] as string[] };
    let stop = false;
    let signalled = Number.POSITIVE_INFINITY;
    const paths = ['/', '/en/blog', '/p/layla', '/c/k7f2q9', '/health', '/index.md'];
    const worker = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const sent = Date.now();
        try {
          const res = await fetch(`http://127.0.0.1:${port}${paths[(n + i) % paths.length]}`);
          await res.arrayBuffer();
          if (res.status === 200) outcomes.ok++;
          else if (res.status === 503) outcomes.closing503++;
          else outcomes.other.push(`status ${res.status}`);
        } catch (err) {
          const code = (err as { cause?: { code?: string } }).cause?.code;
          if (code === 'ECONNREFUSED') {
            outcomes.refused++;
            return;
          }
          // Sent after the signal on a kept-alive connection the server was closing as idle: HTTP's keep-alive race
          // (RFC 9112 §9.5), which a client retries; not a request the server had begun.
          if (code === 'ECONNRESET' && sent >= signalled) {
            outcomes.closedIdle++;
            return;
          }
          outcomes.other.push(String(code ?? err));
        }
      }
    };
    const load = Promise.all(Array.from({ length: 20 }, (_, n) => worker(n)));
    // Signal once the server is demonstrably under load (50 answers), not after a fixed delay: on a busy
    // machine a fixed delay may see too few requests for the test to mean anything.
    const loadedBy = Date.now() + 30_000;
    while (outcomes.ok < 50 && outcomes.other.length === 0 && Date.now() < loadedBy)
      await new Promise((r) => setTimeout(r, 20));
    expect(outcomes.other).toEqual([]);
    expect(outcomes.ok).toBeGreaterThanOrEqual(50);
    const okBeforeSignal = outcomes.ok;
    signalled = Date.now();
    child.kill('SIGTERM');
    const { code, at } = await exited;
    stop = true;
    await load;

    // How soon it exits is bounded by the drain and the wait for in-flight requests (sidecar/server.ts), and measured
    // by the bench, not here: a bound in seconds failed on a busy machine (issue 46), where every step takes longer.
    expect(code).toBe(0);
    expect(at).toBeGreaterThan(signalled);
    // With 20 workers, requests are in flight at the signal; they complete with 200.
    expect(outcomes.ok).toBeGreaterThan(okBeforeSignal);
    // Keep-alive connections still open at shutdown get Fastify's 503 "closing"; no request sent before the signal is
    // reset.
    expect(outcomes.other).toEqual([]);
  });
});

describe('SIGTERM with connections the server has not taken yet', () => {
  it('answers the requests on connections opened before the signal, not resets them with the listener (CI: ECONNRESET)', async () => {
    const { child, port } = await spawnTestSidecar({ DATABASE_PATH: await createDatabase() });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // The server's loop stopped: the kernel completes each handshake and queues the connection, unaccepted, with its
    // request, as it does while a busy loop has not come round to the listener yet.
    child.kill('SIGSTOP');
    const answers = Array.from(
      { length: 5 },
      () =>
        new Promise<string>((resolve) => {
          const socket = connect(port, '127.0.0.1', () =>
            socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
          );
          let got = '';
          socket.on('data', (chunk) => (got += chunk.toString('latin1')));
          socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
          socket.on('close', () => resolve(got.split('\r\n')[0] ?? ''));
        }),
    );
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGTERM');
    child.kill('SIGCONT');
    const got = await Promise.all(answers);
    await exited;
    expect(got).toEqual(Array(5).fill('HTTP/1.1 200 OK'));
  });
});
