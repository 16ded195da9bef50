// Pipelining (issue 60): a client may send its next request before the last is answered (RFC 9112 §9.3.2), and the
// sidecar reads and answers one request of a connection at a time, in order, as nginx and HAProxy do
// (sidecar/admission/pipelining.ts). 32 connections from one address, each writing 5,000 pipelined requests and
// reading nothing, ran `npm run serve` out of its heap in 3-14 s on the code before this suite.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../sidecar/admission/limits.ts';
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
    // The per-client request rate as shipped (the suites' sidecars lift it: they ask from one address).
    sidecar = await spawnTestSidecar({
      DATABASE_PATH: await createDatabase(),
      REQUEST_RATE_PER_CLIENT: String(LIMITS.requestRatePerClient.default),
      REQUEST_BURST_PER_CLIENT: String(LIMITS.requestBurstPerClient.default),
    });
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
      expect(
        got.slice(0, -1).every((status) => status === 200),
        `${got.join(',')} ${one.destroyed}`,
      ).toBe(true);
      expect(got.length === 50 || (got.at(-1) === 429 && one.destroyed), `${got.join(',')} ${one.destroyed}`).toBe(
        true,
      );
    } finally {
      reader.stopped = true;
      await reading;
      for (const socket of attack) socket.destroy();
    }
    expect(reader.statuses).toEqual({ 200: expect.any(Number) });
    expect(exited).toBeUndefined();
    expect((await get(sidecar, '/p/layla', '127.0.3.1')).status).toBe(200);
  });

  it("sixteen connections pipelining a cached page and reading every answer: refused past the client's rate a connection at a time, not thousands of times", async () => {
    // Before, the sidecar sent 241,354 answers of 429 and 322 of 200 in 17 s to such a client, each refusal a trip
    // through the app, while a reader on another address got 12 answers.
    const counts = { opened: 0, 200: 0, 429: 0, other: 0 };
    const end = Date.now() + 3000;
    const connection = async () => {
      for (let round = 0; round < 1000 && Date.now() < end; round++) {
        const socket = pipelined(
          sidecar,
          '127.0.2.9',
          Array.from({ length: 200 }, () => '/p/layla'),
        );
        counts.opened++;
        for (const { status } of await answers(socket, 200))
          if (status === 200 || status === 429) counts[status]++;
          else counts.other++;
        socket.destroy();
        await pause(10);
      }
    };
    const reader: Record<number, number> = {};
    const reading = (async () => {
      for (let i = 0; Date.now() < end && i < 10_000; i++) {
        const { status } = await get(sidecar, i % 2 ? '/p/layla' : '/health', '127.0.3.2').catch(() => ({ status: 0 }));
        reader[status] = (reader[status] ?? 0) + 1;
        await pause(20);
      }
    })();
    await Promise.all([...Array.from({ length: 16 }, connection), reading]);
    expect(exited).toBeUndefined();
    // At most one refusal a connection: each 429 closes it, and a new connection is the client's to pay for.
    expect(counts[429]).toBeGreaterThan(0);
    expect(counts[429]).toBeLessThanOrEqual(counts.opened);
    // No more answered than its burst and three seconds of its rate (and a second's slack for a slow machine).
    expect(counts[200]).toBeLessThanOrEqual(
      LIMITS.requestBurstPerClient.default + 4 * LIMITS.requestRatePerClient.default,
    );
    expect(reader).toEqual({ 200: expect.any(Number) });
  });
});
