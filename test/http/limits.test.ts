// Slow and amplified requests are bounded, and our own defects are told apart from an unavailable database (issue 10).
import { request } from 'node:http';
import { connect } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SidecarProcess } from '../../scripts/sidecar-process.ts';
import { createDatabase } from '../helpers/database.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const BOTH = 'application/json, text/event-stream';
const post = (server: TestServer, body: unknown) =>
  fetch(server.url + '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: BOTH, 'mcp-protocol-version': '2025-03-26' },
    body: JSON.stringify(body),
  });
const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('a request that never finishes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ config: { requestTimeoutMs: 500 } });
  });
  afterAll(() => server.close());

  it('half a body: the server answers 408 and closes the connection, and stays healthy', async () => {
    const url = new URL(server.url);
    const outcome = await new Promise<{ closed: boolean; response: string }>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: ${BOTH}\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`,
        );
      });
      let response = '';
      socket.setEncoding('latin1');
      socket.on('data', (d) => (response += d));
      socket.on('close', () => resolve({ closed: true, response }));
      socket.on('error', () => undefined);
      // Far beyond the 500 ms limit: a server without one keeps the socket open for as long as the client likes.
      setTimeout(() => {
        resolve({ closed: false, response });
        socket.destroy();
      }, 8000);
    });
    expect(outcome.closed).toBe(true);
    expect(outcome.response).toMatch(/^HTTP\/1\.1 408/);
    // Our answer, with our headers, as every other answer (issue 36: Node's own 408 had none).
    expect(outcome.response).toMatch(/\r\ncontent-security-policy: /i);
    expect(outcome.response).toMatch(/\r\nx-content-type-options: nosniff/i);
    expect((await fetch(server.url + '/health')).status).toBe(200);
  });
});

describe('a request head too large', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const answer = (method: string) =>
    new Promise<string>((resolve) => {
      const url = new URL(server.url);
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write(`${method} /p/layla HTTP/1.1\r\nHost: ${url.host}\r\nAccept: ${'a'.repeat(20_000)}\r\n\r\n`),
      );
      let response = '';
      socket.setEncoding('latin1');
      socket.on('data', (d) => (response += d));
      socket.on('close', () => resolve(response));
      socket.on('error', () => undefined);
    });

  it('is answered 431 with our headers, a body for GET and none for HEAD, and the connection closed', async () => {
    const get = await answer('GET');
    expect(get).toMatch(/^HTTP\/1\.1 431 /);
    expect(get).toMatch(/\r\ncontent-security-policy: /i);
    expect(get).toMatch(/\r\nconnection: close\r\n/i);
    expect(get.split('\r\n\r\n')[1]).toMatch(/too large/i);
    const head = await answer('HEAD');
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    // What follows the head of a HEAD answer would be read as the next answer (a client's parse error).
    expect(head.split('\r\n\r\n')[1]).toBe('');
    expect((await fetch(server.url + '/health')).status).toBe(200);
  });
});

describe('MCP batches', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ config: { mcpRateLimit: 6, mcpMaxBatch: 4, mcpMaxResponseBytes: 64 * 1024 } });
  });
  afterAll(() => server.close());

  it('each message of a batch counts against the rate limit', async () => {
    const batch = (from: number) => [0, 1, 2].map((i) => call(from + i, 'list_blog_articles', {}));
    const first = await post(server, batch(1));
    expect(first.status).toBe(200);
    expect(await first.json()).toHaveLength(3);
    const second = await post(server, batch(4));
    expect(second.status).toBe(200);
    // Six messages in two POSTs: the limit of six is reached, whatever the number of POSTs.
    const third = await post(server, call(7, 'list_blog_articles', {}));
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    const refusal = await third.json();
    expect(refusal.error.code).toBe(-32000);
    // The limit as configured: six messages per sixty seconds, not per the time left until the window resets.
    expect(refusal.error.message).toContain('at most 6 messages per 60 s');
  });

  it('a single message over the limit is told the same window', async () => {
    const res = await post(server, call(8, 'list_blog_articles', {}));
    expect(res.status).toBe(429);
    expect((await res.json()).error.message).toMatch(/per 60 s\b/);
  });
});

describe('MCP batch size and response size', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ config: { mcpMaxBatch: 4, mcpMaxResponseBytes: 8 * 1024 } });
  });
  afterAll(() => server.close());

  it('a batch over the limit is refused whole, saying the limit', async () => {
    const res = await post(
      server,
      [1, 2, 3, 4, 5].map((id) => call(id, 'list_blog_articles', {})),
    );
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain('at most 4');
  });

  it('answers share one byte budget: once it is spent, a document is refused before it is read, saying its size', async () => {
    // Four articles of about 3 KiB each: together over 8 KiB.
    const slug = 'qr-or-nfc-business-card';
    const res = await post(
      server,
      [1, 2, 3, 4].map((id) => call(id, 'get_blog_article', { slug, lang: 'en' })),
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    const answers = JSON.parse(text) as { id: number; result: { isError?: boolean; content: { text: string }[] } }[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4]);
    // The first fit whole; then each is refused, in a line that says why, instead of being built.
    expect(answers[0]!.result.content[0]!.text).toContain('title:');
    const refused = answers.filter((a) => a.result.isError);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    for (const a of refused) expect(a.result.content[0]!.text).toMatch(/too large to return here: [\d,]+ bytes/);
    // The response holds what fit and the refusals, no more.
    expect(text.length).toBeLessThan(8 * 1024 + 4 * 600);
    // One article alone fits.
    const one = await post(server, call(9, 'get_blog_article', { slug, lang: 'en' }));
    expect((await one.json()).result.content[0].text).toContain('title:');
  });
});

describe('a corrupt row (written by another writer)', () => {
  let server: TestServer;
  beforeAll(async () => {
    const path = await createDatabase();
    const db = new Database(path);
    db.prepare("UPDATE cards SET phones = 'not json' WHERE card_id = 'n0rth1'").run();
    db.close();
    server = await startTestServer({ databasePath: path });
  });
  afterAll(() => server.close());

  it('is answered with the negotiated 500 page and our headers, not as an unavailable database', async () => {
    const html = await fetch(server.url + '/c/n0rth1');
    expect(html.status).toBe(500);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-security-policy')).toBeTruthy();
    expect(html.headers.get('retry-after')).toBeNull();
    expect(await html.text()).toContain('<html');
    const md = await fetch(server.url + '/c/n0rth1', { headers: { accept: 'text/markdown' } });
    expect(md.status).toBe(500);
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    // The database itself is fine: health and the other pages say so.
    expect((await fetch(server.url + '/health')).status).toBe(200);
    expect((await fetch(server.url + '/c/k7f2q9')).status).toBe(200);
  });
});

describe('a date another writer made no date (issue 46)', () => {
  let sidecar: SidecarProcess;
  beforeAll(async () => {
    const path = await createDatabase();
    const db = new Database(path);
    db.prepare("UPDATE profiles SET updated_at = '2026-13-45' WHERE slug = 'layla'").run();
    db.prepare("UPDATE cards SET updated_at = ? WHERE card_id = 'n0rth1'").run(
      '2026-11-01T00:00:00Z\r\nTEL:+19005550000',
    );
    db.close();
    // A process of its own: what once ended the process must be seen to leave it running.
    sidecar = await spawnTestSidecar({ DATABASE_PATH: path });
  });
  afterAll(() => void sidecar.child.kill('SIGKILL'));

  it('is logged and answered 500 where it is served (the sitemap, the page, the vCard), and the process lives', async () => {
    for (let i = 0; i < 3; i++) {
      const sitemap = await fetch(`${sidecar.url}/sitemap.xml`);
      expect(sitemap.status).toBe(500);
      await sitemap.arrayBuffer();
    }
    expect((await fetch(`${sidecar.url}/p/layla`)).status).toBe(500);
    const vcard = await fetch(`${sidecar.url}/c/n0rth1.vcf`);
    expect(vcard.status).toBe(500);
    expect(await vcard.text()).not.toContain('TEL:+19005550000');
    expect(sidecar.child.exitCode).toBeNull();
    // Everything else is served, the database is fine, and the log names the row.
    expect((await fetch(`${sidecar.url}/p/sam-rivera`)).status).toBe(200);
    expect((await fetch(`${sidecar.url}/health`)).status).toBe(200);
    expect(sidecar.output()).toContain('profiles.updated_at of profile layla is not a date');
  });
});

// Load shed before it stalls (issue 36): the test holds this process's event loop (the server runs in it), as a burst
// of work would, and asks right after; costly work is refused, what is cached or static is served, health says why.
describe('a lagging event loop', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ config: { maxEventLoopDelayMs: 20 } });
  });
  afterAll(() => server.close());

  const until200 = async (path: string) => {
    for (let i = 0; i < 50; i++) {
      const res = await fetch(server.url + path);
      await res.arrayBuffer();
      if (res.status === 200) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${path} never answered 200`);
  };

  it('sheds costly requests with 503 and Retry-After while /health says why and cached and static pages answer', async () => {
    await until200('/p/layla');
    await until200('/health');
    // Hold the loop for a second: the next sample of its delay says it lags. Now and then it does not (CI, once in six
    // runs): the likely cause is the sampler's timer falling due in the hold's first 10 ms, so that it runs before the
    // delay's monitor records the hold (both are late, and run in the order they fell due). Held again then, at most
    // three times: a server that never sheds still fails.
    // A page not yet rendered each time: one rendered in a round that was not shed would be cached in the next.
    const uncachedPages = ['/p/sam-rivera', '/p/qahwat-alnakheel', '/p/northwind-studio'];
    const ask = async (uncachedPage: string) => {
      const until = Date.now() + 1000;
      while (Date.now() < until);
      await new Promise((r) => setTimeout(r, 5));
      return Promise.all([
        fetch(server.url + '/health'),
        fetch(server.url + '/p/layla'),
        fetch(server.url + uncachedPage),
        fetch(server.url + '/en/blog'),
        post(server, { jsonrpc: '2.0', id: 1, method: 'ping' }),
      ]);
    };
    let held = 0;
    let answers = await ask(uncachedPages[held]!);
    while (answers[0].status !== 503 && ++held < uncachedPages.length) {
      await Promise.all(answers.map((res) => res.arrayBuffer()));
      await until200('/health');
      answers = await ask(uncachedPages[held]!);
    }
    const [health, cached, uncached, staticPage, mcp] = answers;
    expect(health.status).toBe(503);
    const body = await health.json();
    expect(body.status).toBe('degraded');
    expect(body.reason).toMatch(/shedding load: the event loop lags (at least )?\d+ ms/);
    expect(cached.status).toBe(200);
    expect(staticPage.status).toBe(200);
    expect(uncached.status).toBe(503);
    expect(uncached.headers.get('retry-after')).toBe('1');
    expect(mcp.status).toBe(503);
    expect(mcp.headers.get('retry-after')).toBe('1');
    expect((await mcp.json()).error.message).toMatch(/Service busy: the event loop lags/);
    // Once the loop keeps up again, so does the server.
    await until200(uncachedPages[held]!);
    await until200('/health');
  });
});

// What a client says about its request, to the letter (issue 46): only a body some route reads is asked for, every
// answer carries our headers, every method on /mcp is judged alike, and a client that closes its half gets its answer.
describe('RFC 9110 and 9112 at the edges of a request', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  /** Sends `text` on a raw connection (then closes its half when `end`), and resolves with all it heard once closed or quiet. */
  const exchange = (text: string, { end = false, quietMs = 1500 } = {}) =>
    new Promise<string>((resolve) => {
      const url = new URL(server.url);
      let heard = '';
      let quiet: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        clearTimeout(quiet);
        socket.destroy();
        resolve(heard);
      };
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(text.replaceAll('HOST', url.host));
        if (end) socket.end();
        quiet = setTimeout(done, quietMs);
      });
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => {
        heard += d;
        quiet?.refresh();
      });
      socket.on('close', done);
      socket.on('error', () => undefined);
    });

  it('Expect: 100-continue with a body over the limit is answered 413 at once, never told to continue', async () => {
    const heard = await exchange(
      `POST /mcp HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\nAccept: ${BOTH}\r\nContent-Length: 99000000\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(heard).toMatch(/^HTTP\/1\.1 413 /);
    expect(heard).not.toContain('100 Continue');
    expect(heard).toMatch(/\r\ncontent-security-policy: /i);
  });

  it('Expect: 100-continue with a body the route reads is told to continue, then answered', async () => {
    const url = new URL(server.url);
    const answer = await new Promise<{ interim: boolean; status: number }>((resolve, reject) => {
      let interim = false;
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/mcp',
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: BOTH,
            'content-length': Buffer.byteLength(body),
            expect: '100-continue',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ interim, status: res.statusCode ?? 0 }));
        },
      );
      req.on('continue', () => {
        interim = true;
        req.end(body);
      });
      req.on('error', reject);
    });
    expect(answer).toEqual({ interim: true, status: 200 });
  });

  it('another expectation is 417, with our headers', async () => {
    const heard = await exchange('GET /en/blog HTTP/1.1\r\nHost: HOST\r\nExpect: telepathy\r\n\r\n');
    expect(heard).toMatch(/^HTTP\/1\.1 417 /);
    expect(heard).toMatch(/\r\ncontent-security-policy: /i);
    expect(heard).toMatch(/\r\nx-content-type-options: nosniff/i);
  });

  it('every method /mcp does not take is 405 with Allow: POST, whatever the method', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'PROPFIND', 'SEARCH', 'MKCOL']) {
      const heard = await exchange(`${method} /mcp HTTP/1.1\r\nHost: HOST\r\nConnection: close\r\n\r\n`);
      expect(heard, method).toMatch(/^HTTP\/1\.1 405 /);
      expect(heard, method).toMatch(/\r\nallow: POST\r\n/i);
    }
  });

  it('a body no route takes is not read: 405 for a page that exists, 404 for a path that names nothing', async () => {
    const deep = '['.repeat(100_000);
    for (const [path, status] of [
      ['/en/blog', 405],
      ['/no/such/thing', 404],
    ] as const) {
      const heard = await exchange(
        `POST ${path} HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\nContent-Length: ${deep.length}\r\nConnection: close\r\n\r\n${deep}`,
      );
      expect(heard, path).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    }
  });

  it('a client still sending a body no route takes reads the answer, and loses its connection', async () => {
    // Five addresses sending 1 MiB bodies to a page, 256 KiB of each read and dropped, had another reader's cached
    // page at p90 12-14 ms (baseline 3-6); at 64 KiB, 5.5-5.8 (issue 46); a body declared over 64 KiB is now not read
    // at all (test/faults/worst-requests.test.ts). The client here sends 200 KiB of a body declared 1 MiB and then
    // nothing: within 256 KiB it was kept lingering five seconds for the rest.
    const url = new URL(server.url);
    const heard = await new Promise<{ text: string; closed: boolean }>((resolve) => {
      let text = '';
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST /en/blog HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024}\r\n\r\n${'['.repeat(200 * 1024)}`,
        );
      });
      const gaveUp = setTimeout(() => resolve({ text, closed: false }), 3000);
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => (text += d));
      socket.on('close', () => {
        clearTimeout(gaveUp);
        resolve({ text, closed: true });
      });
      socket.on('error', () => undefined);
    });
    expect(heard.text).toMatch(/^HTTP\/1\.1 405 /);
    expect(heard.closed).toBe(true);
  });

  it('a client that closes its half of the connection after its request still gets the answer', async () => {
    // A page not rendered yet: its answer waits for the render thread, after the client's half is closed.
    const heard = await exchange('GET /p/sam-rivera HTTP/1.1\r\nHost: HOST\r\n\r\n', { end: true });
    expect(heard).toMatch(/^HTTP\/1\.1 200 /);
    expect(heard).toContain('</html>');
  });
});
