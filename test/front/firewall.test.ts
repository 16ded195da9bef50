// The front's firewall (issue 60): `npm run front -- firewall` prints nftables rules that hold each client address to
// its share of new connections and of connections open, in the kernel, before nginx accepts them. One stranger's 4,500
// connections, each opened again at once after its 429, kept nginx's worker busy accepting: another reader's static
// page p99 62 ms with nginx's limits alone. Loaded here for the front's port only (a table of its own), removed after.
import { execFileSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NFT, removeFirewall } from '../../scripts/front-firewall.ts';
import { established, loadFirewall } from '../helpers/firewall.ts';
import { FRONT_LIMITS } from '../../scripts/front-config.ts';
import { createDatabase } from '../helpers/database.ts';
import { startShippedFront } from '../helpers/front.ts';

/** The packets the rule that adds to `set` has dropped so far (its counter), in the table for `port`. */
const droppedBy = (port: number, set: string) =>
  Number(
    new RegExp(`add @${set} \\{[^}]*\\} counter packets (\\d+)`).exec(
      execFileSync(NFT, ['list', 'table', 'inet', `bio_front_${port}`], { encoding: 'utf8' }),
    )?.[1] ?? NaN,
  );

describe("the front's firewall", () => {
  let front: Awaited<ReturnType<typeof startShippedFront>>;
  let url: URL;
  const held: Socket[] = [];
  const release = () => held.splice(0).forEach((socket) => socket.destroy());

  beforeAll(async () => {
    front = await startShippedFront({ DATABASE_PATH: await createDatabase() });
    url = new URL(front.url);
  }, 120_000);
  afterAll(async () => {
    release();
    if (url) removeFirewall(Number(url.port));
    await front?.stop();
  });

  it("drops one address's new connections past its rate and burst, and no other address's", async () => {
    loadFirewall(Number(url.port));
    const { connectionRatePerSecond: rate, connectionBurst: burst } = FRONT_LIMITS;
    const started = performance.now();
    // Three times the burst at once from the stranger, and twenty from a reader beside it.
    const [stranger, reader] = await Promise.all([
      Promise.all(Array.from({ length: 3 * burst }, () => established(url, '127.0.2.77', 700, held))),
      Promise.all(Array.from({ length: 20 }, () => established(url, '127.0.3.77', 5_000, held))),
    ]);
    const seconds = (performance.now() - started) / 1000;
    const through = stranger.filter(Boolean).length;
    // The burst and what the rate adds while they wait, not the rest (their SYNs are sent again a second later).
    expect(through).toBeGreaterThanOrEqual(burst);
    expect(through).toBeLessThanOrEqual(burst + Math.ceil(rate * seconds) + 8);
    expect(reader.every(Boolean)).toBe(true);
    // The front still answers the reader.
    const answer = await fetch(new URL('/robots.txt', url));
    expect(answer.status).toBe(200);
    release();
  }, 60_000);

  it("drops a connection past the open ones an address may hold, and no other address's", async () => {
    loadFirewall(Number(url.port), ['--client-connections', '20']);
    const first = await Promise.all(Array.from({ length: 20 }, () => established(url, '127.0.2.78', 5_000, held)));
    expect(first.every(Boolean)).toBe(true);
    expect(await established(url, '127.0.2.78', 1_500, held)).toBe(false);
    // Another address is not counted with it.
    expect(await established(url, '127.0.3.78', 5_000, held)).toBe(true);
    // (Room made by a close is not tried here: on loopback the kernel tracks a connection as it leaves the sender, so
    // a SYN this rule dropped stays counted as an attempt for two minutes; a SYN from another machine does not.)
    release();
  }, 60_000);

  it("holds one address's small segments to its rate: a drip's body still arrives whole, and another address reads on", async () => {
    const port = Number(url.port);
    loadFirewall(port, ['--client-small-segment-rate', '16', '--client-small-segment-burst', '32']);
    const dropped = () => droppedBy(port, 'small4');
    expect(dropped()).toBe(0);
    // A body of 300 bytes to /mcp, a byte a segment, from the stranger's address.
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(240) } });
    const socket = connect({ port, host: url.hostname, localAddress: '127.0.2.80', noDelay: true });
    held.push(socket);
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    for (const byte of body) {
      socket.write(byte);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // A reader on another address meanwhile, not held to the stranger's share.
    expect((await fetch(new URL('/robots.txt', url))).status).toBe(200);
    // The dropped segments are sent again by the stranger's kernel, with what came after them: the body arrives whole
    // and is answered (MCP's own answer to a ping without a session, whatever it is: not a timeout, not a reset).
    const until = Date.now() + 20_000;
    while (!/^HTTP\/1\.1 (\d{3})/.test(answer) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(answer).toMatch(/^HTTP\/1\.1 (200|202|400|406) /);
    expect(dropped()).toBeGreaterThan(0);
    release();
  }, 60_000);

  it("holds one address's bytes to its rate: a body nginx refuses arrives at the rate, and another address reads on", async () => {
    const port = Number(url.port);
    loadFirewall(port, ['--client-bytes-rate', '262144', '--client-bytes-burst', '1048576']);
    const dropped = () => droppedBy(port, 'bytes4');
    expect(dropped()).toBe(0);
    // A body of 64 MiB to /mcp (over its 64 KiB: 413), sent as fast as the connection takes it. nginx answers at once
    // and then reads the body to its end: without the rule, a loopback's speed (63 MiB in 129 ms).
    const size = 64 * 1024 * 1024;
    const socket = connect({ port, host: url.hostname, localAddress: '127.0.2.81' });
    held.push(socket);
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1'))).on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let queued = 0;
    const pump = () => {
      while (queued < size && socket.write(chunk)) queued += chunk.length;
    };
    socket.on('drain', () => {
      queued += chunk.length;
      pump();
    });
    pump();
    await new Promise((r) => setTimeout(r, 2000));
    // What the kernel took of it in two seconds: the burst, two seconds at the rate, and what the sockets' buffers hold.
    const taken = socket.bytesWritten - socket.writableLength;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(taken).toBeLessThan(size / 3);
    expect(dropped()).toBeGreaterThan(0);
    // A reader on another address meanwhile, not held to the stranger's share.
    expect((await fetch(new URL('/robots.txt', url))).status).toBe(200);
    release();
  }, 60_000);

  it('counts nothing from a proxy the front trusts', async () => {
    loadFirewall(Number(url.port), ['--trust-proxy', '127.0.5.0/24', '--client-connections', '20']);
    const proxy = await Promise.all(Array.from({ length: 200 }, () => established(url, '127.0.5.9', 5_000, held)));
    expect(proxy.every(Boolean)).toBe(true);
    release();
  }, 60_000);
});
