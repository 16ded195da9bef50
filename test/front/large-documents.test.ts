// A large document through the front, to a client that takes no compression (issue 46). A sitemap part is 5 MB as
// it is and 132 KB in gzip, and the sidecars keep only the compressed forms. Sent decompressed by a sidecar, nginx read
// each such answer whole into a temporary file, for a client that might never read it: five addresses asking sixteen
// each kept the sidecar decompressing for them, and another reader's cached page waited (the fairness bench, p99
// 11-19 ms against a baseline of 4.3-6.2). The front now asks for gzip and decompresses as the client reads, at the
// sidecars' pace and share. Counts of bytes, not times: a slower machine only sends fewer.
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { request, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../sidecar/admission/limits.ts';
import { startShippedFront } from '../helpers/front.ts';
import { largeDatabase } from '../helpers/large-database.ts';

/** Clients reading one decompressed at once, of one client (DECOMPRESS_SLOTS_PER_CLIENT). */
const DECOMPRESSING_PER_CLIENT = LIMITS.decompressSlotsPerClient.default;

const PART = '/sitemaps/2.xml';

describe('a large document through the front, to a client that takes no compression', () => {
  let front: Awaited<ReturnType<typeof startShippedFront>>;
  const held: Socket[] = [];
  /** The gzip answer's length (the first test reads it). */
  let compressedSize = 0;
  // As shipped: the front's shares for one client are what this is about.
  beforeAll(async () => {
    front = await startShippedFront(await largeDatabase('sqlite'));
  }, 120_000);
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await front?.stop();
  });

  /** Bytes the sidecar's process has written to any socket or file, in /proc's own count. */
  const written = () => Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${front.sidecar.child.pid}/io`, 'utf8'))![1]);

  /** A connection that asks for the part, taking no coding, and reads nothing: its status line is all it waits for. */
  const stalled = () =>
    new Promise<{ socket: Socket; status: number }>((resolve, reject) => {
      const url = new URL(front.url);
      const socket = connect(Number(url.port), url.hostname, () =>
        socket.write(`GET ${PART} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`),
      );
      socket.once('data', (chunk: Buffer) => {
        socket.pause();
        resolve({ socket, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1]) });
      });
      socket.once('error', reject);
    });

  /** The part as the front sends it, undecoded (fetch would ask for gzip itself, and decode what it is sent). */
  const get = (acceptEncoding?: string) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const url = new URL(front.url);
      const headers: Record<string, string> = acceptEncoding ? { 'accept-encoding': acceptEncoding } : {};
      request({ host: url.hostname, port: url.port, path: PART, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
        .on('error', reject)
        .end();
    });

  it('is the whole document, decompressed by the front, and the same compressed to those who take it', async () => {
    const gzip = await get('gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    const text = gunzipSync(gzip.body).toString('utf8');
    expect(text.length).toBeGreaterThan(1024 * 1024);
    compressedSize = gzip.body.length;
    const br = await get('br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString('utf8') === text).toBe(true);
    // Each takes about five seconds, at the sidecars' pace: at once, within one client's share.
    await Promise.all(
      [undefined, 'identity', 'gzip;q=0'].map(async (acceptEncoding) => {
        const plain = await get(acceptEncoding);
        expect({ encoding: plain.headers['content-encoding'], vary: plain.headers.vary }, acceptEncoding).toEqual({
          encoding: undefined,
          vary: 'Accept-Encoding',
        });
        expect(plain.body.toString('utf8') === text, acceptEncoding).toBe(true);
      }),
    );
  });

  it("costs the sidecar its compressed copy for a client that never reads, and takes a client's share at once", async () => {
    expect(compressedSize).toBeGreaterThan(0);
    const before = written();
    for (let i = 0; i < DECOMPRESSING_PER_CLIENT; i++) {
      const { socket, status } = await stalled();
      held.push(socket);
      expect(status).toBe(200);
    }
    // A second and a half: a sidecar sending them decompressed, at its pace of 1 MiB a second each, had written about
    // 6 MB by then into nginx's temporary files (and did so for a client that read nothing).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(written() - before).toBeLessThan(DECOMPRESSING_PER_CLIENT * compressedSize + 64 * 1024);
    // One more from the same address, past its share: refused at once, not held; one that takes gzip is not counted.
    const over = await get();
    expect({ status: over.status, retryAfter: over.headers['retry-after'] }).toEqual({ status: 429, retryAfter: '1' });
    expect((await get('gzip')).status).toBe(200);
    for (const socket of held.splice(0)) socket.destroy();
  });
});
