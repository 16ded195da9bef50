// Pipelining (issue 60): a client may send its next request before the last is answered (RFC 9112 §9.3.2), and the
// sidecar reads and answers one request of a connection at a time, in order, as nginx and HAProxy do
// (sidecar/admission/pipelining.ts). 32 connections from one address, each writing 5,000 pipelined requests and
// reading nothing, ran `npm run serve` out of its heap in 3-14 s on the code before this suite.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SidecarProcess } from '../../scripts/sidecar-process.ts';
import { createDatabase } from '../helpers/database.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A GET of `path` on `localAddress`, on a connection of its own: its status and body. */
function get(sidecar: SidecarProcess, path: string, localAddress: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: sidecar.port, path, localAddress, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject).end();
  });
}

/** A connection from `localAddress` that has been sent `requests` in one write. */
function pipelined(sidecar: SidecarProcess, localAddress: string, requests: string[]): Socket {
  const socket = connect({ host: '127.0.0.1', port: sidecar.port, localAddress });
  socket.on('error', () => undefined);
  socket.write(requests.map((path) => `GET ${path} HTTP/1.1\r\nHost: localhost:8080\r\n\r\n`).join(''));
  return socket;
}

/** The answers read on `socket` until `count` have come or it closes: status and body of each, in order. */
function answers(socket: Socket, count: number): Promise<{ status: number; body: string }[]> {
  return new Promise((resolve) => {
    const read: { status: number; body: string }[] = [];
    let pending = Buffer.alloc(0);
    const done = () => {
      socket.removeAllListeners('data');
      resolve(read);
    };
    socket.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      for (;;) {
        const headEnd = pending.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const head = pending.subarray(0, headEnd).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < headEnd + 4 + length) return;
        const body = pending.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
        read.push({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body });
        pending = pending.subarray(headEnd + 4 + length);
        if (read.length === count) return done();
      }
    });
    socket.once('close', done);
  });
}

describe('pipelined requests', () => {
  let sidecar: SidecarProcess;
  let exited: string | undefined;

  beforeAll(async () => {
    sidecar = await spawnTestSidecar({ DATABASE_PATH: await createDatabase() });
    sidecar.child.once('exit', (code, signal) => (exited = `${code ?? signal}: ${sidecar.output().slice(-600)}`));
  });
  afterAll(() => void sidecar?.child.kill('SIGKILL'));

  it('are answered one at a time, in the order sent, on the connection the client keeps', async () => {
    const paths = ['/health', '/p/layla', '/robots.txt', '/c/k7f2q9', '/health', '/p/layla', '/en/blog', '/llms.txt'];
    const socket = pipelined(sidecar, '127.0.5.1', paths);
    try {
      const got = await answers(socket, paths.length);
      expect(got.map((answer) => answer.status)).toEqual(paths.map(() => 200));
      expect(got[0]!.body).toMatch(/"status"/);
      expect(got[1]!.body).toMatch(/<html[^>]*>[\s\S]*layla/i);
      expect(got[2]!.body).toMatch(/^User-agent:/im);
      expect(got[7]!.body).toMatch(/^# /);
      // The connection is still the client's: one more request on it is answered.
      socket.write('GET /health HTTP/1.1\r\nHost: localhost:8080\r\n\r\n');
      expect((await answers(socket, 1)).map((answer) => answer.status)).toEqual([200]);
    } finally {
      socket.destroy();
    }
  });

  it('forty short ones in one write are all answered, in order', async () => {
    const paths = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? '/p/layla' : '/health'));
    const socket = pipelined(sidecar, '127.0.5.2', paths);
    try {
      const got = await answers(socket, paths.length);
      expect(got.map((answer) => answer.status)).toEqual(paths.map(() => 200));
      expect(got.map((answer) => answer.body.startsWith('{'))).toEqual(paths.map((path) => path === '/health'));
    } finally {
      socket.destroy();
    }
  });

  it('a connection with more than MAX_PIPELINED_REQUESTS unanswered (64) is closed, not answered', async () => {
    // Requests of 26 bytes: 78 of them in the 2 KiB the server reads of a connection at most at a time.
    const socket = connect({ host: '127.0.0.1', port: sidecar.port, localAddress: '127.0.5.4' });
    socket.on('error', () => undefined);
    socket.write('GET / HTTP/1.1\r\nHost:a\r\n\r\n'.repeat(78));
    const got = await answers(socket, 78);
    expect({ closed: socket.destroyed || socket.readableEnded, fewer: got.length < 78 }).toEqual({
      closed: true,
      fewer: true,
    });
    // Another client is not touched by it.
    expect((await get(sidecar, '/health', '127.0.5.3')).status).toBe(200);
  });

  it("five addresses' 64 connections writing 5,000 each and reading nothing: the process lives, another address's reader is served", async () => {
    const attack = [1, 2, 3, 4, 5].flatMap((host) =>
      Array.from({ length: 64 }, () => {
        const socket = pipelined(
          sidecar,
          `127.0.2.${host}`,
          Array.from({ length: 5000 }, () => '/p/layla'),
        );
        socket.pause();
        return socket;
      }),
    );
    const reader = { statuses: {} as Record<number, number>, stopped: false };
    const reading = (async () => {
      for (let i = 0; !reader.stopped && i < 10_000; i++) {
        const path = i % 2 === 0 ? '/health' : '/p/layla';
        const { status } = await get(sidecar, path, '127.0.3.1').catch(() => ({ status: 0 }));
        reader.statuses[status] = (reader.statuses[status] ?? 0) + 1;
        await pause(20);
      }
    })();
    try {
      // The attack held while the reader reads a hundred pages (the process died within 3-14 s of less before).
      for (let i = 0; i < 200 && Object.values(reader.statuses).reduce((a, b) => a + b, 0) < 100; i++) await pause(100);
      expect(exited).toBeUndefined();
      // A connection that reads now is answered in order, one request after another, until its client is past its
      // share of requests in progress (its other 63 connections hold one each): then one refusal, and it is closed.
      const one = attack[0]!;
      const got = (
        await (async () => {
          const reading = answers(one, 50);
          one.resume();
          return reading;
        })()
      ).map((answer) => answer.status);
      expect(got.slice(0, -1).every((status) => status === 200)).toBe(true);
      expect(got.length === 50 || (got.at(-1) === 429 && one.destroyed)).toBe(true);
    } finally {
      reader.stopped = true;
      await reading;
      for (const socket of attack) socket.destroy();
    }
    expect(reader.statuses).toEqual({ 200: expect.any(Number) });
    expect(exited).toBeUndefined();
    expect((await get(sidecar, '/p/layla', '127.0.3.1')).status).toBe(200);
  });
});
