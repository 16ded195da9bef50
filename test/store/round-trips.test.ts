// What a live page costs on a standby across a link (issue 60): a profile is read in one round trip, however far the
// standby is. A profile is three reads (the row, its links, its socials) in one snapshot; sent one after another, with
// the transaction's begin and commit, they were five trips, each paid in the event loop and in the link's latency.
// Counted between the sidecar's store and the standby by a proxy that holds the standby's answers back a little, so
// that whatever the store sends before it has an answer arrives as one flight.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../sidecar/store/open-store.ts';
import type { Store } from '../../sidecar/store/store.ts';
import { createDatabase } from '../helpers/database.ts';
import { testConfig } from '../helpers/env.ts';
import { databaseFromSqlite } from '../helpers/postgres.ts';

/** One connection through the proxy: who opened it (its application_name) and the store's flights on it. */
interface Line {
  application: string;
  /** Each time the store sent after the standby had answered (or first): one round trip. */
  flights: number;
}

/** A TCP proxy to `port` that delays the standby's answers by `delayMs` and counts each connection's flights. */
async function countingProxy(port: number, delayMs: number): Promise<{ server: Server; port: number; lines: Line[] }> {
  const lines: Line[] = [];
  const server = createServer((store: Socket) => {
    const line: Line = { application: '', flights: 0 };
    lines.push(line);
    const standby = connect(port, '127.0.0.1');
    let answered = true;
    store.on('data', (chunk) => {
      // The startup message names the connection's application (key and value, each NUL-ended).
      if (!line.application)
        line.application = /application_name\0([^\0]*)\0/.exec(chunk.toString('latin1'))?.[1] ?? '?';
      if (answered) line.flights++;
      answered = false;
      standby.write(chunk);
    });
    standby.on('data', (chunk) =>
      setTimeout(() => {
        answered = true;
        store.write(chunk);
      }, delayMs),
    );
    for (const [a, b] of [
      [store, standby],
      [standby, store],
    ] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, lines };
}

let proxy: Awaited<ReturnType<typeof countingProxy>>;
let store: Store;

beforeAll(async () => {
  const { standby } = await databaseFromSqlite(await createDatabase());
  const target = new URL(standby);
  proxy = await countingProxy(Number(target.port), 20);
  target.port = String(proxy.port);
  store = openStore({ ...testConfig, databasePath: '', databaseUrl: target.href, pgPoolSize: 1 });
});

afterAll(async () => {
  await store?.close();
  proxy?.server.close();
});

it("reads a profile, its links and its socials from a standby in one round trip, the owner's whole edit or none", async () => {
  // The first read prepares the statements on the pool's connection; what is measured is every read after it.
  const first = await store.profile('layla');
  expect(first?.links.length).toBeGreaterThan(0);
  expect(first?.socials.length).toBeGreaterThan(0);
  const clients = proxy.lines.filter((line) => line.application === 'bio-sidecar');
  expect(clients).toHaveLength(1);
  const before = clients[0]!.flights;
  const reads = 6;
  for (let i = 0; i < reads; i++) expect(await store.profile(i % 2 ? 'layla' : 'sam-rivera')).toBeDefined();
  expect(await store.profile('nobody-by-this-name')).toBeUndefined();
  expect(clients[0]!.flights - before).toBe(reads + 1);
  // The same profile as read the first time, whole.
  expect(await store.profile('layla')).toEqual(first);
});
