// Hostile and broken input: every answer a 4xx (never a 5xx, never a file outside the build), and the server healthy after.
import { request } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  // A limit high enough for the property test below; the rate-limit test starts its own server.
  server = await startTestServer();
});
afterAll(() => server.close());

/** A raw HTTP request: fetch normalises paths and refuses odd methods, a hostile client does not. */
function raw(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; target?: TestServer } = {},
) {
  const url = new URL((options.target ?? server).url);
  return new Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }>(
    (resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path, method: options.method ?? 'GET', headers: options.headers ?? {} },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        },
      );
      req.on('error', reject);
      req.end(options.body);
    },
  );
}

/** The status of a hand-written request, read from the socket until the server closes it. */
function rawStatus(text: string): Promise<number> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    // Written, not ended: a server may close a half-closed connection before it has answered.
    const socket = connect(Number(url.port), url.hostname, () => socket.write(text));
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      data += chunk;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(data)?.[1];
      if (status) {
        socket.destroy();
        resolve(Number(status));
      }
    });
    socket.on('error', (err) => (data ? undefined : reject(err)));
    socket.on('close', () => reject(new Error(`closed without a status: ${JSON.stringify(data.slice(0, 80))}`)));
  });
}

const healthy = async () => expect((await fetch(server.url + '/health')).status).toBe(200);

describe('paths', () => {
  it.each([
    '/..%2f..%2fpackage.json',
    '/%2e%2e/',
    '/%2e%2e/package.json',
    '/p/..%2F..%2Fetc%2Fpasswd',
    '/global-scripts/../../package.json',
    '/../../etc/passwd',
    '/_astro/..%5c..%5cpackage.json',
    '/c/..%2f..%2fdist%2fbuild-manifest.json',
    '/%00',
    '/p/layla%00.html',
    '/en/blog/%E0%A4%A',
    '/%ZZ',
    '/\\..\\package.json',
  ])('%s answers 4xx and reveals nothing', async (path) => {
    const res = await raw(path);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    for (const secret of ['devDependencies', 'root:x:0', '"fingerprint"']) expect(res.body).not.toContain(secret);
  });

  it('an overlong URL and overlong headers are refused with 4xx', async () => {
    // Node answers both 431 (the request line counts as header); nginx in front answers 414 URI Too Long and, for
    // the header, its own 400 "Request Header Or Cookie Too Large".
    expect([414, 431]).toContain(await rawStatus(`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`));
    expect([400, 431]).toContain(
      await rawStatus(`GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`),
    );
    expect((await raw('/p/' + 'a'.repeat(3000))).status).toBe(404);
  });

  // RFC 9112 section 3.2: a request with more than one Host, or a Host that is not a host, MUST be answered 400.
  it('two Host headers, or a Host with a port out of range, are 400', async () => {
    const url = new URL(server.url);
    expect(
      await rawStatus(`GET /p/layla HTTP/1.1\r\nHost: ${url.host}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`),
    ).toBe(400);
    for (const host of ['localhost:65536', '127.0.0.1:99999999', 'a b', 'localhost:80:80']) {
      expect(await rawStatus(`GET /p/layla HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`), host).toBe(400);
    }
    expect(await rawStatus(`GET /p/layla HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`)).toBe(200);
  });

  // Issue 36: a run of slashes not at the end backtracked quadratically; the canonical URL is the path without them.
  it('a path of many slashes is answered with the canonical URL, or refused', async () => {
    // Read raw: the canonical URL of 15,000 slashes makes an answer head larger than Node's client reads.
    const status = await rawStatus(
      `GET /${'/'.repeat(15_000)}a/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    );
    expect([301, 400, 404, 414, 431]).toContain(status);
  });

  // Issue 27: a decoded %2F made the path end in a slash, and the canonical URL, built from the raw path, was the same URL.
  it.each([
    '/p/layla%2F',
    '/%2F',
    '/en/blog%2F',
    '/mcp%2F',
    '/p%2Flayla',
    '/en%2Fblog',
    '/c/k7f2q9%2f',
    '/sitemaps%2F1.xml',
  ])('%s never redirects to itself, and names nothing', async (path) => {
    const res = await raw(path);
    expect(res.status, path).toBe(404);
    expect(res.headers.location).toBeUndefined();
  });

  // RFC 9112 section 3.2.2: a server MUST accept the absolute form of the request target (and take the host from it).
  it.each(['/p/layla', '/en/blog', '/health'])(
    'the absolute form of %s is answered as the origin form',
    async (path) => {
      const url = new URL(server.url);
      const status = await rawStatus(
        `GET http://${url.host}${path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`,
      );
      expect(status, path).toBe(200);
    },
  );

  // RFC 9110 §15.5.6: a resource that exists but does not take the method is 405 with Allow; OPTIONS answers Allow.
  it.each([
    '/p/layla',
    '/c/k7f2q9',
    '/',
    '/en/blog',
    '/en/blog/qr-or-nfc-business-card',
    '/robots.txt',
    '/c/k7f2q9.vcf',
    '/sitemap.xml',
  ])(
    'other methods on %s (which exists) answer 405 with Allow: GET, HEAD; OPTIONS answers 204 with Allow',
    async (path) => {
      for (const method of ['PUT', 'DELETE', 'PATCH', 'POST']) {
        const res = await raw(path, {
          method,
          headers: { 'content-type': 'text/plain', 'content-length': '1' },
          body: 'x',
        });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.allow, `${method} ${path}`).toBe('GET, HEAD');
        expect(res.headers['content-security-policy'], `${method} ${path}`).toBeTruthy();
      }
      const options = await raw(path, { method: 'OPTIONS' });
      expect(options.status, `OPTIONS ${path}`).toBe(204);
      expect(options.headers.allow, `OPTIONS ${path}`).toBe('GET, HEAD');
      expect(options.body).toBe('');
      // The page itself is unchanged.
      expect((await raw(path)).status).toBe(200);
    },
  );

  it('other methods on a path that names nothing stay 404', async () => {
    for (const method of ['PUT', 'DELETE', 'OPTIONS']) {
      for (const path of ['/p/nobody-here', '/en/blog/missing', '/missing/deep/path'])
        expect((await raw(path, { method })).status, `${method} ${path}`).toBe(404);
    }
  });

  it('unknown and unsupported methods are refused with 4xx', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'PROPFIND', 'TRACE']) {
      const res = await raw('/', { method });
      expect(res.status, method).toBeGreaterThanOrEqual(400);
      expect(res.status, method).toBeLessThan(500);
    }
  });
});

describe('headers', () => {
  it.each([
    ['accept', 'text/markdown;q=banana'],
    ['accept', ',,,;;;'],
    ['accept', 'x'.repeat(4000)],
    ['accept-language', '!!!, ar;q=2, en;q=-1'],
    ['accept-language', 'ar-' + 'x'.repeat(2000)],
    ['if-none-match', '"' + 'x'.repeat(3000)],
  ])('garbage %s is answered like a browser without it', async (name, value) => {
    for (const path of ['/', '/en/blog', '/p/layla', '/missing', '/blog']) {
      const res = await raw(path, { headers: { [name]: value } });
      expect(res.status, `${path} ${name}`).toBeLessThan(500);
    }
  });
});

describe('/mcp', () => {
  const BOTH = 'application/json, text/event-stream';
  const jsonRpcValue = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.string(),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  const message = fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.string(), fc.integer()),
      id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), jsonRpcValue),
      method: fc.oneof(
        fc.constantFrom(
          'initialize',
          'ping',
          'tools/list',
          'tools/call',
          'resources/list',
          'resources/read',
          'prompts/list',
          'nope',
        ),
        fc.string(),
        jsonRpcValue,
      ),
      params: jsonRpcValue,
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    message.map((m) => JSON.stringify(m)),
    fc.array(message, { maxLength: 3 }).map((m) => JSON.stringify(m)),
    jsonRpcValue.map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 200 }),
    fc.string({ maxLength: 50 }).map((s) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${s}}`),
  );
  const headers = fc.record({
    accept: fc.constantFrom(BOTH, 'application/json', '*/*', 'text/event-stream', 'garbage'),
    'content-type': fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
    ),
    'mcp-protocol-version': fc.constantFrom('2025-11-25', '2025-06-18', '2099-01-01', 'garbage'),
  });

  it('answers every generated request with a JSON-RPC result or error, a status of 200, 400, 406, 413 or 415, and stays up', async () => {
    await fc.assert(
      fc.asyncProperty(body, headers, async (text, hdrs) => {
        const res = await raw('/mcp', { method: 'POST', headers: hdrs, body: text });
        expect([200, 202, 400, 406, 413, 415]).toContain(res.status);
        if (res.status === 202) return; // a notification: accepted, no body
        const parsed = JSON.parse(res.body);
        for (const reply of Array.isArray(parsed) ? parsed : [parsed]) {
          expect(reply.jsonrpc).toBe('2.0');
          expect('result' in reply !== 'error' in reply).toBe(true);
          if (reply.error) expect(Number.isInteger(reply.error.code)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
    await healthy();
  });

  it('refuses a huge body with 413 without reading it all', async () => {
    const res = await raw('/mcp', {
      method: 'POST',
      headers: { accept: BOTH, 'content-type': 'application/json' },
      body: '[' + '1,'.repeat(3 * 1024 * 1024) + '1]',
    });
    expect(res.status).toBe(413);
    await healthy();
  });
});

describe('rate limiting on /mcp', () => {
  it('answers 429 with Retry-After past the configured limit, per client, and leaves other routes alone', async () => {
    const limited = await startTestServer({ config: { mcpRateLimit: 3, mcpRateWindowSeconds: 60 } });
    try {
      const ping = () =>
        raw('/mcp', {
          target: limited,
          method: 'POST',
          headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
      for (let i = 0; i < 3; i++) expect((await ping()).status).toBe(200);
      const refused = await ping();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(JSON.parse(refused.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
      expect((await raw('/en/blog', { target: limited })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('afterwards', () => {
  it('the server is healthy', healthy);
});
