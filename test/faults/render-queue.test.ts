// What the render queue spares (issue 60). A render waits for a thread in its client's line (fair-slots.ts):
// - a client whose connection is gone while its renders wait gives their places up: work nobody will read is not
//   done. A stranger who asked forty never-drawn link-preview pictures on forty connections and reset them had all
//   forty drawn after it left (in the fairness bench, the render threads went on for seconds after an attack while the
//   next readers waited). A connection only half-closed (RFC 9112 §9.6: `printf … | nc`) is still answered
//   (test/http/limits.test.ts): its client may be waiting for the answer;
// - a client the queue would refuse is refused before its record is read: on a PostgreSQL standby, five addresses
//   crawling never-drawn pictures cost a read (five round trips) and then a 503, hundreds a second, and another
//   reader's cached page waited behind those reads.
// Told by the counts an operator reads (bio_render_tasks_total, bio_live_cache_misses_total), not by a clock.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type SidecarProcess } from '../../scripts/sidecar-process.ts';
import { largeDatabase } from '../helpers/large-database.ts';
import { parseMetrics, valueOf } from '../helpers/metrics.ts';
import { spawnTestSidecar } from '../helpers/sidecar.ts';

const STRANGER = '127.0.0.2';

/** A sidecar over the large database with one render thread (renders queue behind one another), and its metrics. */
function withSidecar(env: Record<string, string> = {}) {
  const it = { sidecar: undefined as unknown as SidecarProcess, metricsUrl: '' };
  beforeAll(async () => {
    const port = await freePort();
    it.metricsUrl = `http://127.0.0.1:${port}/metrics`;
    it.sidecar = await spawnTestSidecar({
      ...(await largeDatabase('sqlite')),
      RENDER_THREADS: '1',
      METRICS_LISTEN: `127.0.0.1:${port}`,
      ...env,
    });
  }, 120_000);
  afterAll(() => void it.sidecar?.child.kill('SIGKILL'));
  return {
    get sidecar() {
      return it.sidecar;
    },
    /** The value of `name` (with `labels`) in a scrape of the sidecar's metrics now. */
    metric: async (name: string, labels?: Record<string, string>) =>
      valueOf(parseMetrics(await (await fetch(it.metricsUrl)).text()), name, labels),
  };
}

/**
 * `count` connections from the stranger's address, each sending one request for a never-drawn profile's picture
 * (profiles `from` on).
 */
function strangerAsks(url: string, count: number, from = 1000): Promise<Socket[]> {
  const { hostname, port, host } = new URL(url);
  return Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: hostname, port: Number(port), localAddress: STRANGER }, () => {
            socket.write(`GET /p/bench-${from + i}/og.png HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
            resolve(socket);
          });
          socket.on('error', reject);
        }),
    ),
  );
}

/** Polls `check` every 20 ms until it holds, for at most `ms`; whether it came to hold. */
async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20)))
    if (await check()) return true;
  return check();
}

describe('renders for a client that left', () => {
  const started = withSidecar();
  const { metric } = started;
  const drawn = () => metric('bio_render_tasks_total', { kind: 'og' });
  const waiting = () => metric('bio_render_waiting');
  const ASKED = 40;

  it(`are never drawn: ${ASKED} pictures asked on connections reset while they wait cost a render or two, not ${ASKED}`, async () => {
    const { sidecar } = started;
    // The thread is up (its first render loads the renderer) and one picture drawn.
    expect((await fetch(`${sidecar.url}/p/bench-1/og.png`)).status).toBe(200);
    const before = await drawn();
    expect(before).toBe(1);
    const sockets = await strangerAsks(sidecar.url, ASKED);
    // Most of them wait for the thread; then the stranger leaves.
    expect(await until(async () => (await waiting()) >= ASKED / 2, 20_000), 'the renders queued').toBe(true);
    const atReset = await drawn();
    for (const socket of sockets) socket.resetAndDestroy();
    // Every place given up, and what was running then finished.
    expect(await until(async () => (await waiting()) === 0, 20_000), 'the queue emptied').toBe(true);
    // Settled: the same count half a second apart (a render takes tens of milliseconds).
    let last = -1;
    for (let i = 0; i < 40; i++) {
      const now = await drawn();
      if (now === last) break;
      last = now;
      await new Promise((r) => setTimeout(r, 500));
    }
    // After it left: the render running then, the one ready behind it, and those done before the resets arrived.
    expect(last - atReset).toBeLessThanOrEqual(5);
    expect(last - before).toBeLessThan(ASKED / 2);
    // The sidecar still draws for whoever stays.
    expect((await fetch(`${sidecar.url}/p/bench-2/og.png`)).status).toBe(200);
  });
});

describe('a client past its share of the render queue', () => {
  // Four places in the lines, and two tasks at the thread.
  const started = withSidecar({ RENDER_WAITING_PER_THREAD: '4' });
  const { metric } = started;
  const ASKED = 24;

  it("is refused before its records are read: no lookup for a picture the queue would refuse, and another client's still drawn", async () => {
    const { sidecar } = started;
    expect((await fetch(`${sidecar.url}/p/bench-1/og.png`)).status).toBe(200);
    // The stranger fills the queue first: sixteen pictures for two tasks at the thread and four places; once one is
    // refused, the queue is full.
    const filling = await strangerAsks(sidecar.url, 16, 2000);
    const refusedOne = await Promise.any(
      filling.map((socket) => statusOf(socket).then((status) => (status === 503 ? status : Promise.reject()))),
    );
    expect(refusedOne).toBe(503);
    const missesBefore = await metric('bio_live_cache_misses_total');
    const sockets = await strangerAsks(sidecar.url, ASKED);
    const statuses = await Promise.all(sockets.map(statusOf));
    const misses = (await metric('bio_live_cache_misses_total')) - missesBefore;
    for (const socket of [...filling, ...sockets]) socket.destroy();
    const drawnForIt = statuses.filter((s) => s === 200).length;
    const refused = statuses.filter((s) => s === 503).length;
    expect(drawnForIt + refused, statuses.join(' ')).toBe(ASKED);
    expect(refused).toBeGreaterThan(ASKED / 2);
    // Each request that went on looked up its profile and its picture (two misses); one refused before looked up
    // nothing. A place that frees while a few ask lets them all on to their reads, and the first takes it: most are
    // refused before (every one of them went on to its reads before, 48 misses).
    expect(misses, statuses.join(' ')).toBeLessThanOrEqual(ASKED / 2);
    // Another address, with no line, is drawn a picture nobody asked before.
    expect((await fetch(`${sidecar.url}/p/bench-3/og.png`)).status).toBe(200);
  });
});

/** The status of the answer `socket` hears first (0: closed with none). */
function statusOf(socket: Socket): Promise<number> {
  return new Promise<number>((resolve) => {
    let heard = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      heard += chunk;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(heard);
      if (status && heard.includes('\r\n\r\n')) resolve(Number(status[1]));
    });
    socket.on('close', () => resolve(0));
  });
}

describe('requests a client pipelined and then left', () => {
  const started = withSidecar();
  const { metric } = started;
  const PIPELINED = 30;

  // The pipelining gate holds a connection's requests and starts the next when the last is answered. A crawler that
  // pipelined thirty never-drawn pictures a connection and left had every one of them started after it was gone, each
  // its profile's lookup (a read; five round trips on a PostgreSQL standby) and an answer written to a closed socket:
  // in the fairness bench, the next attack's readers waited seconds behind the crawl's leftovers (issue 60).
  it(`are not started once its connection is gone: ${PIPELINED} pictures pipelined cost the one in progress, not ${PIPELINED} lookups`, async () => {
    const { sidecar } = started;
    expect((await fetch(`${sidecar.url}/p/bench-1/og.png`)).status).toBe(200);
    const before = await metric('bio_live_cache_misses_total');
    const { hostname, port, host } = new URL(sidecar.url);
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ host: hostname, port: Number(port), localAddress: STRANGER }, () => resolve(s));
      s.on('error', reject);
    });
    socket.on('error', () => undefined);
    socket.write(
      Array.from(
        { length: PIPELINED },
        (_, i) => `GET /p/bench-${4000 + i}/og.png HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      ).join(''),
    );
    // The first is being answered (its lookups done); the rest wait their turn. Then the client leaves.
    expect(await until(async () => (await metric('bio_live_cache_misses_total')) > before, 20_000)).toBe(true);
    socket.resetAndDestroy();
    // Settled: the same count half a second apart.
    let last = -1;
    for (let i = 0; i < 40; i++) {
      const now = await metric('bio_live_cache_misses_total');
      if (now === last) break;
      last = now;
      await new Promise((r) => setTimeout(r, 500));
    }
    // The request in progress when it left looked up its profile and its picture (two misses); none after it did.
    expect(last - before).toBeLessThanOrEqual(4);
    expect((await fetch(`${sidecar.url}/p/bench-2/og.png`)).status).toBe(200);
  });
});
