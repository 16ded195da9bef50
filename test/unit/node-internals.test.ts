// What the sidecar relies on of Node's internals (sidecar/admission/node-internals.ts): this suite fails, naming what
// changed, when a Node upgrade changes any of it, so that a defence never turns itself off silently (issue 60).
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readingHandle } from '../../sidecar/admission/node-internals.ts';
import { Pipelining } from '../../sidecar/admission/pipelining.ts';

let server: Server | undefined;
afterEach(() => server?.close());

/** A server whose handler answers after `ms`, behind the pipelining gate; the sockets it was given; how many at once. */
async function gatedServer(ms: number) {
  const seen = { sockets: [] as Socket[], inProgress: 0, most: 0, order: [] as string[], ungated: [] as string[] };
  const pipelining = new Pipelining(
    (req, res) => {
      seen.inProgress++;
      seen.most = Math.max(seen.most, seen.inProgress);
      seen.order.push(req.url ?? '');
      setTimeout(() => {
        seen.inProgress--;
        res.end(req.url);
      }, ms);
    },
    { maxPipelined: 64, onUngated: (why) => seen.ungated.push(why) },
  );
  server = createServer(pipelining.request);
  server.on('connection', (socket: Socket) => seen.sockets.push(socket));
  server.on('connection', pipelining.connection);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as { port: number }).port, seen, pipelining };
}

describe("Node's internals the sidecar stands on", () => {
  it("a connection's libuv stream can be stopped and started, and says whether it reads", async () => {
    const { port, seen } = await gatedServer(1);
    const client = connect({ port, host: '127.0.0.1' });
    await new Promise((resolve) => client.once('connect', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const handle = readingHandle(seen.sockets[0]!);
    expect(handle, 'socket._handle with readStop and readStart').toBeDefined();
    expect(typeof handle!.reading, 'socket._handle.reading').toBe('boolean');
    expect(handle!.reading).toBe(true);
    // Stopped, what the client sends waits; started again, it arrives.
    handle!.readStop();
    client.write('GET /held HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.order).toEqual([]);
    handle!.readStart();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.order).toEqual(['/held']);
    client.destroy();
  });

  it("the HTTP server reads a connection through one 'data' listener of its own, and the gate takes it", async () => {
    const { port, seen, pipelining } = await gatedServer(5);
    const client = connect({ port, host: '127.0.0.1' });
    let answers = '';
    client.on('data', (chunk: Buffer) => (answers += chunk.toString('latin1')));
    const paths = Array.from({ length: 12 }, (_, i) => `/r${i}`);
    client.write(paths.map((path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
    for (let i = 0; i < 100 && (answers.match(/HTTP\/1\.1 200/g)?.length ?? 0) < paths.length; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen.ungated, "the gate found Node's reader").toEqual([]);
    expect(pipelining.gated(seen.sockets[0]!)).toBe(true);
    // One at a time, in order, every one answered.
    expect(seen.most).toBe(1);
    expect(seen.order).toEqual(paths);
    expect([...answers.matchAll(/\r\n\r\n(\/r\d+)/g)].map((m) => m[1])).toEqual(paths);
    expect(typeof seen.sockets[0]!.writableNeedDrain, 'socket.writableNeedDrain').toBe('boolean');
    client.destroy();
  });

  it('after an answer that closes the connection, what the client still sent is read, and the answer is not lost to a reset', async () => {
    // A client that pipelined far more than is read: closed at once, the kernel resets the connection over the bytes
    // unread and the client loses the answer (seen for a 429 in test/faults/pipelining.test.ts before the linger).
    let pipelining: Pipelining | undefined;
    const { port } = await (async () => {
      const made = new Pipelining(
        (req, res) => {
          if (req.url === '/last') made.closeAfter(res);
          res.end(`answer to ${req.url}`);
        },
        { maxPipelined: 64 },
      );
      pipelining = made;
      server = createServer(made.request);
      server.on('connection', made.connection);
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
      return { port: (server.address() as { port: number }).port };
    })();
    expect(pipelining).toBeDefined();
    const client = connect({ port, host: '127.0.0.1' });
    let received = '';
    const errors: string[] = [];
    client.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    client.on('error', (err) => errors.push((err as NodeJS.ErrnoException).code ?? err.message));
    const ended = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.write('GET /last HTTP/1.1\r\nHost: x\r\n\r\n' + 'GET /more HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(20_000));
    // The client reads its answers a moment later, as one busy writing does: a reset meanwhile drops them unread.
    client.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    client.resume();
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 5000))]);
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received).toMatch(/\r\nconnection: close\r\n/i);
    expect(received).toContain('answer to /last');
    expect(received).not.toContain('answer to /more');
    expect(errors).toEqual([]);
  });
});
