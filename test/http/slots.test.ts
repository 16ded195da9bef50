// Shared slots held only for one's own work (issue 36): an /mcp request takes one of the MCP_MAX_CONCURRENT slots
// once its body has arrived, gives it back when its answer has left or its client stopped reading (SEND_TIMEOUT_MS),
// and the wait for a slot is fair between client addresses. Each test is a race told by its order of events, not by
// a clock: the bounds themselves are measured by the worst-request benchmark.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { largeDatabase } from '../helpers/large-database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const BOTH = 'application/json, text/event-stream';
const LEGACY = { 'content-type': 'application/json', accept: BOTH, 'mcp-protocol-version': '2025-03-26' };
const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

/** POSTs `body` to /mcp from `localAddress`; resolves with the status once the whole answer is read. */
function post(server: TestServer, body: string, localAddress = '127.0.0.1'): Promise<number> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: LEGACY, localAddress, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A raw connection that sends `head` (and nothing after it), and records whether anything came back. */
function opened(server: TestServer, head: string): Promise<Socket & { heard: () => string; wasClosed: () => boolean }> {
  const url = new URL(server.url);
  return new Promise((resolve) => {
    let heard = '';
    let closed = false;
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(head);
      resolve(Object.assign(socket, { heard: () => heard, wasClosed: () => closed }));
    });
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (heard += chunk));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
  });
}

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

describe('a body that never arrives', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ config: { mcpMaxConcurrent: 4, mcpRateLimit: 1_000_000 } });
  });
  afterAll(() => server.close());

  it('holds no slot: four connections that send only headers leave /mcp open to everyone else', async () => {
    const url = new URL(server.url);
    const head = `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: ${BOTH}\r\nContent-Length: 50000\r\n\r\n`;
    const holders = await Promise.all([1, 2, 3, 4].map(() => opened(server, head)));
    sockets.push(...holders);
    // Let the four reach the server before the others ask.
    await new Promise((r) => setTimeout(r, 200));
    const statuses = await Promise.all([1, 2, 3, 4, 5, 6].map((id) => post(server, ping(id))));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    // Answered while the four still wait for their bodies: nothing said to them, none closed.
    for (const holder of holders) {
      expect(holder.heard()).toBe('');
      expect(holder.wasClosed()).toBe(false);
    }
  });
});

describe('a client that stops reading its answer', () => {
  let server: TestServer;
  beforeAll(async () => {
    // A sitemap part of 50,000 URLs (5 MB) twice in one answer: far more than the kernel's buffers hold for a
    // client that reads nothing.
    const { DATABASE_PATH } = await largeDatabase('sqlite');
    server = await startTestServer({
      databasePath: DATABASE_PATH!,
      config: {
        mcpMaxConcurrent: 1,
        mcpMaxResponseBytes: 64 * 1024 * 1024,
        sendTimeoutMs: 500,
        mcpRateLimit: 1_000_000,
      },
    });
  }, 120_000);
  afterAll(() => server.close());

  it('loses its connection, and its slot with it, once its answer stops moving', async () => {
    const url = new URL(server.url);
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'read_page', arguments: { path: '/sitemaps/2.xml' } },
    });
    const body = JSON.stringify([call(1), call(2)]);
    const head = `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: ${BOTH}\r\nMCP-Protocol-Version: 2025-03-26\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const reader = await opened(server, head);
    sockets.push(reader);
    // It reads nothing from here on.
    reader.pause();
    await new Promise((r) => setTimeout(r, 300));
    // With one slot, the next client is answered only once the reader has given its slot back.
    expect(await post(server, ping(9))).toBe(200);
    // The server closed the reader's connection: reading now, it gets what was already sent, not the whole answer.
    reader.resume();
    await new Promise<void>((closed) => (reader.wasClosed() ? closed() : reader.once('close', () => closed())));
    const declared = Number(/content-length: (\d+)/i.exec(reader.heard())?.[1]);
    expect(declared).toBeGreaterThan(8_000_000);
    expect(reader.heard().length).toBeLessThan(declared);
    expect((await fetch(server.url + '/health')).status).toBe(200);
  });
});

describe('the wait for a slot', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Every get_profile renders (no live cache): a request takes long enough for the others to queue behind it.
    server = await startTestServer({ liveCacheSize: 0, config: { mcpMaxConcurrent: 1, mcpRateLimit: 1_000_000 } });
  });
  afterAll(() => server.close());

  it("is fair between addresses: one request from a second address does not wait behind all of the first one's", async () => {
    const finished: string[] = [];
    // Ten renders each: long enough that the first address's requests queue up behind one another.
    const batch = (from: number) =>
      JSON.stringify(
        Array.from({ length: 10 }, (_, i) => ({
          jsonrpc: '2.0',
          id: from + i,
          method: 'tools/call',
          params: { name: 'get_profile', arguments: { page: 'layla' } },
        })),
      );
    const first = Array.from({ length: 12 }, (_, i) =>
      post(server, batch(i * 10), '127.0.0.1').then(() => finished.push(`a${i}`)),
    );
    await new Promise((r) => setTimeout(r, 50));
    const second = post(server, batch(1000), '127.0.0.2').then(() => finished.push('b'));
    await Promise.all([...first, second]);
    // In turn between addresses: the second address's request is among the first few answered, not the last.
    expect(finished.indexOf('b'), finished.join(' ')).toBeLessThan(4);
  });
});

describe('connections one client may hold', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ config: { maxConnectionsPerClient: 8 } });
  });
  afterAll(() => server.close());

  it("past its share a client's new connection is closed at once, and another client is still answered", async () => {
    const url = new URL(server.url);
    const open = (localAddress: string) =>
      new Promise<Socket & { closedAt: () => boolean }>((resolve) => {
        let closed = false;
        const socket = connect({ port: Number(url.port), host: url.hostname, localAddress }, () =>
          resolve(Object.assign(socket, { closedAt: () => closed })),
        );
        socket.on('close', () => (closed = true));
        socket.on('error', () => undefined);
      });
    const held = await Promise.all(Array.from({ length: 10 }, () => open('127.0.0.2')));
    sockets.push(...held);
    await new Promise((r) => setTimeout(r, 200));
    // Eight held open; the ninth and tenth closed by the server.
    expect(held.filter((s) => s.closedAt()).length).toBe(2);
    expect(await post(server, ping(1), '127.0.0.1')).toBe(200);
    // Given back when they go.
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect(await post(server, ping(2), '127.0.0.2')).toBe(200);
  });
});

describe('the decompression of a document kept compressed (issue 46)', () => {
  let server: TestServer;
  beforeAll(async () => {
    const { DATABASE_PATH } = await largeDatabase('sqlite');
    server = await startTestServer({ databasePath: DATABASE_PATH! });
    // The part built, and kept compressed, before anyone reads it.
    await (await fetch(`${server.url}/sitemaps/2.xml`)).arrayBuffer();
  }, 120_000);
  afterAll(() => server.close());

  /** GET without Accept-Encoding from `localAddress`: the status and the bytes of the whole answer. */
  const identity = (localAddress: string) =>
    new Promise<{ status: number; bytes: number }>((resolve, reject) => {
      const url = new URL(server.url);
      const req = request(
        { host: url.hostname, port: url.port, path: '/sitemaps/2.xml', localAddress, agent: false },
        (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  it('is sent at a megabyte a second at most, so that a client reading fast cannot spend the CPU others need', async () => {
    // Five addresses reading a 5 MB part uncompressed as fast as loopback allowed had the decompressor and the copies
    // take the cores from everyone: another reader's cached page p90 12.7 ms (baseline 2.3), p99 21.5 (4.2); paced,
    // p90 2.5 and p99 8.2 (scripts/fair, `npm run bench -- --fair`). A count of bytes in a second, not a time: a
    // slower machine only sends fewer.
    const url = new URL(server.url);
    const firstSecond = await new Promise<{ status: number; bytes: number }>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/sitemaps/2.xml', localAddress: '127.0.8.1', agent: false },
        (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          setTimeout(() => {
            resolve({ status: res.statusCode ?? 0, bytes });
            req.destroy();
          }, 1000);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(firstSecond.status).toBe(200);
    expect(firstSecond.bytes).toBeGreaterThan(0);
    expect(firstSecond.bytes).toBeLessThan(1.25 * 1024 * 1024);
  });

  it('sixteen clients that never read do not keep another client from it: each is cut once it stops reading', async () => {
    const url = new URL(server.url);
    const stalled = await Promise.all(
      Array.from(
        { length: 16 },
        (_, i) =>
          new Promise<Socket>((resolve) => {
            const socket = connect(
              { port: Number(url.port), host: url.hostname, localAddress: `127.0.5.${i + 1}` },
              () => {
                socket.write(`GET /sitemaps/2.xml HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
                socket.pause();
                resolve(socket);
              },
            );
            socket.on('error', () => undefined);
          }),
      ),
    );
    sockets.push(...stalled);
    await new Promise((r) => setTimeout(r, 300));
    // Every slot is held by a client reading nothing; the next client waits its turn and is served whole.
    const answer = await identity('127.0.6.1');
    expect(answer.status).toBe(200);
    expect(answer.bytes).toBeGreaterThan(4_000_000);
  });

  it('a small document kept compressed needs no slot: the sitemap index is answered while its client holds all four', async () => {
    const url = new URL(server.url);
    const holders = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<Socket & { bytes: () => number; head: () => string; ended: Promise<void> }>((resolve) => {
            let bytes = 0;
            let head = '';
            const socket = connect({ port: Number(url.port), host: url.hostname, localAddress: '127.0.7.1' }, () => {
              socket.write(`GET /sitemaps/2.xml HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
              socket.pause();
              resolve(Object.assign(socket, { bytes: () => bytes, head: () => head, ended }));
            });
            const ended = new Promise<void>((done) => socket.once('close', () => done()));
            socket.on('data', (chunk: Buffer) => {
              if (bytes < 1024) head += chunk.toString('latin1', 0, 1024);
              bytes += chunk.length;
            });
            socket.on('error', () => undefined);
          }),
      ),
    );
    sockets.push(...holders);
    await new Promise((r) => setTimeout(r, 300));
    // The same client asks for the index (a few hundred bytes) without compression, like the soak's hundred
    // connections of one address (CI failed on a 503 of it).
    const index = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/sitemap.xml', localAddress: '127.0.7.1', agent: false },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(index.status).toBe(200);
    expect(index.body).toContain('<sitemapindex');
    // Answered while the four still held their slots: read now, each of them gets its whole part, which a slot given
    // back (a reader cut after two seconds without reading) would not.
    for (const holder of holders) holder.resume();
    await Promise.all(holders.map((holder) => holder.ended));
    for (const holder of holders) {
      const declared = Number(/content-length: (\d+)/i.exec(holder.head())?.[1]);
      expect(declared).toBeGreaterThan(4_000_000);
      expect(holder.bytes()).toBeGreaterThan(declared);
    }
  });
});
