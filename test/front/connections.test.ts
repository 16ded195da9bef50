// Connections through the front (issue 46). nginx keeps a fixed number of connection slots a worker; when they run
// out it closes connections kept alive between requests, the oldest first, whoever's they are, to make room. One
// stranger's 4,500 connections, each asking a page now and then, filled the 4,096 it had: the front closed 75,000
// kept-alive connections in ten seconds (others' among them), and the stranger opened them again as fast. Counts of
// connections closed, not times.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathOf } from '../../src/lib/surface.ts';
import { createDatabase } from '../helpers/database.ts';
import { startShippedFront } from '../helpers/front.ts';

/** What the stranger holds: more than the 4,096 slots the front had. */
const STRANGER_CONNECTIONS = 5_000;

/**
 * A kept-alive connection from `localAddress` that asks for `path` once and resolves with it once answered: 200, or the
 * 429 of a client past its share of requests, after which the front closes the connection (issue 60).
 */
function askedOnce(
  url: URL,
  localAddress: string,
  path: string,
): Promise<{ socket: Socket; refused: boolean; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    let closed = false;
    const socket = connect({ port: Number(url.port), host: url.hostname, localAddress }, () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`),
    );
    socket.once('data', (chunk: Buffer) => {
      const status = /^HTTP\/1\.1 (200|429) /.exec(chunk.toString('latin1'))?.[1];
      if (!status) reject(new Error(chunk.toString('latin1', 0, 40)));
      resolve({ socket, refused: status === '429', closed: () => closed });
    });
    socket.on('error', reject).on('close', () => (closed = true));
  });
}

describe('connections through the front', () => {
  let front: Awaited<ReturnType<typeof startShippedFront>>;
  const held: Socket[] = [];
  // As shipped: one worker, as the bench's and the tests' fronts run, and the shares for one client.
  beforeAll(async () => {
    front = await startShippedFront({ DATABASE_PATH: await createDatabase() });
  }, 120_000);
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await front?.stop();
  });

  it("keeps a reader's connection, and every other, while a stranger holds thousands", async () => {
    const url = new URL(front.url);
    const robots = pathOf('getRobots');
    const reader = await askedOnce(url, '127.0.3.1', robots);
    held.push(reader.socket);
    const stranger: { refused: boolean; closed: () => boolean }[] = [];
    // A batch at a time, within the listen queue; each batch from an address of its own, within that address's share
    // of requests (a connection refused is closed by the refusal: these are to be held).
    for (let opened = 0; opened < STRANGER_CONNECTIONS; opened += 250) {
      const address = `127.0.2.${String(1 + opened / 250)}`;
      const batch = await Promise.all(Array.from({ length: 250 }, () => askedOnce(url, address, robots)));
      for (const connection of batch) held.push(connection.socket);
      stranger.push(...batch);
    }
    // Closing a connection to make room is nginx's own doing, at once: a moment is time enough to see it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Of the stranger's, only those refused are closed (by the refusal): none answered 200 was closed to make room.
    expect({
      reader: reader.closed(),
      answered: stranger.filter((connection) => !connection.refused && connection.closed()).length,
      refused: stranger.filter((connection) => connection.refused && !connection.closed()).length,
    }).toEqual({ reader: false, answered: 0, refused: 0 });
    expect(stranger.filter((connection) => !connection.refused).length).toBe(STRANGER_CONNECTIONS);
    // And the reader's connection still answers.
    const answer = await new Promise<string>((resolve) => {
      reader.socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1', 0, 15)));
      reader.socket.write(`GET ${robots} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    });
    expect(answer).toBe('HTTP/1.1 200 OK');
  }, 60_000);
});
