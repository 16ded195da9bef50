// What one stranger can do to a shared server (issue 46), each attack from a set of loopback addresses of its own, so
// that a reader on another address can be measured beside it (reader.ts). Used by `npm run bench -- --fair` and, in
// short, by the fairness suites; each runs in a process of its own (attacker.ts), so that the test's or the bench's
// own work never slows it down.
import { connect, type Socket } from 'node:net';
import { DEFAULT_LANG } from '../../src/lib/locales.ts';
import { pathOf } from '../../src/lib/surface.ts';
import type { AttackContext, AttackCounts } from './attack-context.ts';
import { describeBehaviour, runStranger, type Behaviour } from './stranger.ts';

export type { AttackContext, AttackCounts };

export interface Attack {
  name: string;
  /** In words, for the bench's record. */
  description: string;
  run(context: AttackContext): Promise<AttackCounts>;
}

const BOTH = 'application/json, text/event-stream';
/** A sitemap part of 50,000 URLs (the second: the first holds the static pages' entries). */
const SITEMAP_PART = pathOf('getSitemapPart', { n: '2' });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (counts: AttackCounts, key: string | number, n = 1) => (counts[key] = (counts[key] ?? 0) + n);

/** A connection from `localAddress` that counts the status of every answer it reads. */
function connection(context: AttackContext, localAddress: string, counts: AttackCounts, read = true): Socket {
  const socket = connect({ host: context.url.hostname, port: Number(context.url.port), localAddress, noDelay: true });
  socket.on('error', () => count(counts, 'error'));
  if (read) countAnswers(socket, counts);
  else socket.pause();
  return socket;
}

/**
 * Counts the answers on `socket` by status: a small HTTP/1.1 reader of status lines and Content-Length (every answer
 * here has one, or is chunked, or closes).
 */
function countAnswers(socket: Socket, counts: AttackCounts): void {
  let pending: Buffer = Buffer.alloc(0);
  let skip = 0;
  let chunked = false;
  socket.on('data', (data: Buffer) => {
    pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
    for (;;) {
      if (skip > 0) {
        const dropped = Math.min(skip, pending.length);
        pending = pending.subarray(dropped);
        skip -= dropped;
        if (skip > 0) return;
      }
      if (chunked) {
        const end = pending.indexOf('0\r\n\r\n');
        if (end === -1) {
          pending = pending.subarray(Math.max(0, pending.length - 4));
          return;
        }
        pending = pending.subarray(end + 5);
        chunked = false;
      }
      const headEnd = pending.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const head = pending.subarray(0, headEnd).toString('latin1');
      pending = pending.subarray(headEnd + 4);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1];
      if (!status) return void socket.destroy();
      count(counts, status);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
      chunked = /\r\ntransfer-encoding: *chunked/i.test(head);
      skip = length && !head.includes('HEAD') ? Number(length) : 0;
    }
  });
}

/** Keeps `n` connections from each address open and busy with `work` until the time is up. */
async function connections(
  context: AttackContext,
  n: number,
  work: (socket: Socket, counts: AttackCounts, address: string, index: number) => Promise<void>,
  counts: AttackCounts = {},
  read = true,
): Promise<AttackCounts> {
  const { end } = context;
  let index = 0;
  await Promise.all(
    context.addresses.flatMap((address) =>
      Array.from({ length: n }, async () => {
        while (Date.now() < end) {
          const socket = connection(context, address, counts, read);
          count(counts, 'opened');
          try {
            await work(socket, counts, address, index++);
          } finally {
            socket.destroy();
          }
          await pause(5);
        }
      }),
    ),
  );
  return counts;
}

/** Resolves when `socket` closes, or after `ms`. */
const closedOrAfter = (socket: Socket, ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, Math.max(0, ms));
    socket.once('close', () => resolve(void clearTimeout(timer)));
  });

/** A random profile of the attacks' half (the upper one) of the generated profiles. */
const attackedProfile = (context: AttackContext) =>
  `bench-${Math.ceil(context.profiles / 2) + 1 + Math.floor(Math.random() * Math.floor(context.profiles / 2))}`;

/**
 * Draws of the stranger's space (stranger.ts) kept as named cases: each found what no list had named (issue 60).
 */
const FOUND: { name: string; behaviour: Behaviour }[] = [
  {
    // It ran `npm run serve` out of its heap in 3-14 s before connections were read one request at a time.
    name: 'pipelining',
    behaviour: {
      connections: 32,
      depth: 5000,
      reading: 'never',
      route: 'cached page',
      bodyPace: 'whole',
      headerBytes: 0,
      addresses: 1,
      ending: 'kept',
    },
  },
];

export const ATTACKS: Attack[] = [
  ...FOUND.map(({ name, behaviour }) => ({
    name,
    description: describeBehaviour(behaviour),
    run: (context: AttackContext) =>
      runStranger({ ...behaviour, addresses: context.addresses.length === 1 ? 1 : 5 }, context),
  })),
  {
    name: 'drip',
    description:
      'sixty-four connections an address POST /mcp bodies declared 65,000 bytes, sending them one byte a TCP segment',
    run: (context) =>
      connections(context, 64, async (socket, counts) => {
        const host = context.url.host;
        socket.write(
          `POST ${pathOf('mcp')} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: ${BOTH}\r\nContent-Length: 65000\r\n\r\n`,
        );
        const { end } = context;
        for (let sent = 0; sent < 65_000 && Date.now() < end && !socket.destroyed; sent++) {
          // A segment a byte: the next is written a turn of the loop later, once the last has left.
          // (Or its close: a socket closed while full drains never, and nothing else keeps the process alive.)
          if (!socket.write('[')) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
          await new Promise((resolve) => setImmediate(resolve));
          count(counts, 'sent');
        }
        await closedOrAfter(socket, 1000);
      }),
  },
  {
    name: 'unread bodies',
    description:
      'eight connections an address send 1 MiB bodies of `[[[…` with POST to a page, which no route reads, one after another on each connection (every other one chunked, which an edge cannot judge by its length)',
    run: (context) => {
      const body = '['.repeat(1024 * 1024);
      const chunk = body.slice(0, 64 * 1024);
      const path = pathOf('listBlogArticles', { lang: DEFAULT_LANG });
      return connections(context, 8, async (socket, _counts, _address, index) => {
        const { end } = context;
        for (let i = 0; Date.now() < end && !socket.destroyed; i++) {
          const head = `POST ${path} HTTP/1.1\r\nHost: ${context.url.host}\r\nContent-Type: application/json\r\n`;
          if ((index + i) % 2 === 0) socket.write(`${head}Content-Length: ${body.length}\r\n\r\n${body}`);
          else {
            socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
            for (let c = 0; c < 16; c++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
            socket.write('0\r\n\r\n');
          }
          // The next once this one is answered (or the connection closed).
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 2000);
            socket.once('data', () => resolve(void clearTimeout(timer)));
            socket.once('close', () => resolve(void clearTimeout(timer)));
          });
        }
      });
    },
  },
  {
    name: 'render crawl',
    description:
      "sixty-four connections an address, each pipelining thirty-two requests for never-drawn profiles' link-preview pictures",
    run: (context) =>
      connections(context, 64, async (socket) => {
        const requests = Array.from(
          { length: 32 },
          () =>
            `GET ${pathOf('getProfileOgImage', { page: attackedProfile(context) })} HTTP/1.1\r\nHost: ${context.url.host}\r\n\r\n`,
        );
        socket.write(requests.join(''));
        await closedOrAfter(socket, context.end - Date.now());
      }),
  },
  {
    name: 'identity sitemap',
    description: 'a hundred connections an address read /sitemaps/2.xml without compression, as fast as they can',
    run: (context) =>
      connections(context, 100, async (socket) => {
        socket.write(`GET ${SITEMAP_PART} HTTP/1.1\r\nHost: ${context.url.host}\r\nConnection: close\r\n\r\n`);
        await closedOrAfter(socket, context.end - Date.now());
      }),
  },
  {
    name: 'stalled readers',
    description: 'sixteen connections an address ask /sitemaps/2.xml without compression and read nothing',
    run: (context) =>
      connections(
        context,
        16,
        async (socket) => {
          socket.write(`GET ${SITEMAP_PART} HTTP/1.1\r\nHost: ${context.url.host}\r\n\r\n`);
          await closedOrAfter(socket, context.end - Date.now());
        },
        {},
        false,
      ),
  },
  {
    name: 'connections',
    description: 'nine hundred connections an address, each asking a live page now and then',
    run: async (context) => {
      const counts: AttackCounts = {};
      return connections(
        context,
        900,
        async (socket) => {
          const { end } = context;
          while (Date.now() < end && !socket.destroyed) {
            socket.write(
              `GET ${pathOf('getProfilePage', { page: attackedProfile(context) })} HTTP/1.1\r\nHost: ${context.url.host}\r\n\r\n`,
            );
            await closedOrAfter(socket, 1000);
          }
        },
        counts,
      );
    },
  },
  {
    name: 'mcp flood',
    description: 'eight connections an address send MCP tools/call messages as fast as they are answered',
    run: (context) =>
      connections(context, 8, async (socket) => {
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_profile', arguments: { page: attackedProfile(context) } },
        });
        const { end } = context;
        while (Date.now() < end && !socket.destroyed) {
          socket.write(
            `POST ${pathOf('mcp')} HTTP/1.1\r\nHost: ${context.url.host}\r\nContent-Type: application/json\r\nAccept: ${BOTH}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          );
          await pause(20);
        }
      }),
  },
];

/** An attack named, or a stranger's behaviour given as its JSON (stranger.ts). */
export function attackNamed(name: string): Attack {
  if (name.startsWith('{')) {
    const behaviour = JSON.parse(name) as Behaviour;
    return {
      name: 'stranger',
      description: describeBehaviour(behaviour),
      run: (context) => runStranger(behaviour, context),
    };
  }
  const attack = ATTACKS.find((a) => a.name === name);
  if (!attack) throw new Error(`no attack named "${name}" (${ATTACKS.map((a) => a.name).join(', ')})`);
  return attack;
}
