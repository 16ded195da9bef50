// Logs: one structured JSON line per request (request id, route, status, duration), problems logged with
// context, and no warning for a request answered normally.
import { Writable } from 'node:stream';
import { renameSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  [key: string]: unknown;
}

describe('logs at LOG_LEVEL=info', () => {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ logger: { level: 'info', stream } });
  });
  afterAll(() => server.close());

  const requestLines = () => lines.filter((l) => l.msg === 'request');

  it('writes one line per request with id, method, URL, route, status and duration, and no warning', async () => {
    lines.length = 0;
    const mcp = {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_profile', arguments: { page: 'layla' } },
      }),
    };
    const requests: [string, RequestInit, number, string | null][] = [
      ['/en/blog', {}, 200, '/*'],
      ['/p/layla', {}, 200, '/p/{page}'],
      ['/layla', { redirect: 'manual' }, 302, '/{alias}'],
      ['/c/k7f2q9.vcf', {}, 200, '/c/{cardId}.vcf'],
      // Alias-shaped: the alias route answers it, and finds no alias.
      ['/no-such-page-here', {}, 404, '/{alias}'],
      ['/mcp', mcp, 200, '/mcp'],
    ];
    for (const [path, init, status] of requests)
      expect((await fetch(server.url + path, init)).status, path).toBe(status);
    await expect.poll(() => requestLines().length).toBe(requests.length);

    const logged = requestLines();
    for (const [i, [path, init, status, route]] of requests.entries()) {
      expect(logged[i]).toMatchObject({
        level: 30,
        method: init.method ?? 'GET',
        url: path,
        status,
        route,
        reqId: expect.any(String),
        ms: expect.any(Number),
      });
    }
    expect(new Set(logged.map((l) => l.reqId)).size).toBe(requests.length);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
  });

  it('logs a database failure as a warning with the request id and path, and answers without internals', async () => {
    lines.length = 0;
    const path = server.databasePath;
    renameSync(path, `${path}.away`);
    try {
      const res = await fetch(server.url + '/p/sam-rivera');
      expect(res.status).toBe(503);
      expect(await res.text()).not.toMatch(/SqliteError|not there|\.db\b|node_modules/);
    } finally {
      renameSync(`${path}.away`, path);
    }
    const warning = lines.find((l) => l.level === 40);
    expect(warning).toMatchObject({ msg: 'store unavailable', path: '/p/sam-rivera', reqId: expect.any(String) });
    expect(requestLines().find((l) => l.reqId === warning?.reqId)).toMatchObject({ status: 503 });
  });
});

describe('a request id (issue 64)', () => {
  /** A server that logs at info into `lines`, TRUST_PROXY as given. */
  async function logged(trustProxy: string) {
    const lines: Line[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Line);
        done();
      },
    });
    const server = await startTestServer({ logger: { level: 'info', stream }, config: { trustProxy } });
    return { server, lines };
  }

  it('is made for each request, unique, returned in X-Request-Id and in its log line; a client that is no proxy cannot set it', async () => {
    const { server, lines } = await logged('');
    try {
      const answers = await Promise.all(
        ['/p/layla', '/p/layla', '/no-such-page-here', '/en/blog'].map((path) =>
          fetch(server.url + path, { headers: { 'x-request-id': 'forged-by-a-client' } }),
        ),
      );
      const ids = answers.map((r) => r.headers.get('x-request-id') ?? '');
      for (const id of ids) expect(id).toMatch(/^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/);
      expect(new Set(ids).size).toBe(4);
      await expect.poll(() => lines.filter((l) => l.msg === 'request').length).toBe(4);
      expect(new Set(lines.filter((l) => l.msg === 'request').map((l) => l.reqId))).toEqual(new Set(ids));
    } finally {
      await server.close();
    }
  });

  it("is the trusted proxy's when it sends a sane one, and made otherwise", async () => {
    const { server, lines } = await logged('127.0.0.1');
    try {
      const given = 'edge-7f3a.1732806000:42';
      const kept = await fetch(server.url + '/p/layla', { headers: { 'x-request-id': given } });
      expect(kept.headers.get('x-request-id')).toBe(given);
      await expect.poll(() => lines.find((l) => l.msg === 'request')?.reqId).toBe(given);
      for (const insane of ['x'.repeat(200), 'two words', '<script>'])
        expect(
          (await fetch(server.url + '/p/layla', { headers: { 'x-request-id': insane } })).headers.get('x-request-id'),
        ).not.toBe(insane);
    } finally {
      await server.close();
    }
  });
});
