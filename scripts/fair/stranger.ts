// A stranger that searches (issue 60): each round, a stranger found the shape no list of attacks named (a batch, a
// slow body, a drip, then pipelining). Here an attacker's behaviour is drawn from a space, not taken from a list: how
// many connections, how deep it pipelines, how it reads, how fast its bodies come, how large its headers are, which
// kind of route it asks, from one address or five, and how it leaves. fast-check draws them (a seed reproduces a run)
// and shrinks a failing one to the smallest that still fails; the draws found worst are kept as named attacks
// (attacks.ts). The fairness suite and `npm run bench -- --fair --stranger N` run them beside an innocent reader.
import { connect, type Socket } from 'node:net';
import fc from 'fast-check';
import { DEFAULT_LANG } from '../../src/lib/locales.ts';
import { pathOf } from '../../src/lib/surface.ts';
import type { AttackContext, AttackCounts } from './attack-context.ts';

/** The kinds of route a stranger may ask, each what it costs the server most to answer. */
export const ROUTE_KINDS = [
  'static page',
  'cached page',
  'uncached page',
  'link-preview picture',
  'vCard',
  'sitemap part',
  'missing',
  'mcp call',
  'body to a page',
] as const;
export type RouteKind = (typeof ROUTE_KINDS)[number];

export interface Behaviour {
  /** Connections an address holds at once, each opened again when it closes. */
  connections: number;
  /** Requests written on a connection in one go before any answer is read (1: one at a time). */
  depth: number;
  /** How it reads the answers: as they come, a kilobyte every 100 ms, or never. */
  reading: 'at once' | 'slowly' | 'never';
  route: RouteKind;
  /** For a route with a body: sent whole, or a byte a segment. */
  bodyPace: 'whole' | 'drip';
  /** Bytes of a header of its own on every request (up to the 16 KiB a head may hold). */
  headerBytes: number;
  addresses: 1 | 5;
  /** How a connection ends once its requests are written: kept until the server closes it, half-closed, or reset. */
  ending: 'kept' | 'half-closed' | 'reset';
}

/** The space of behaviours. `scale` < 1 draws fewer connections and shallower pipelines (a CI-sized run). */
export function behaviourArbitrary(scale = 1): fc.Arbitrary<Behaviour> {
  return fc.record({
    connections: fc.integer({ min: 1, max: Math.max(1, Math.round(1000 * scale)) }),
    depth: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: Math.max(1, Math.round(10_000 * scale)) })),
    reading: fc.constantFrom('at once', 'slowly', 'never'),
    route: fc.constantFrom(...ROUTE_KINDS),
    bodyPace: fc.constantFrom('whole', 'drip'),
    headerBytes: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 15_000 })),
    addresses: fc.constantFrom(1, 5),
    ending: fc.constantFrom('kept', 'half-closed', 'reset'),
  });
}

/** One line, for a record or a failure message. */
export const describeBehaviour = (b: Behaviour) =>
  `${b.connections} connections × ${b.addresses} address${b.addresses === 1 ? '' : 'es'}, ${b.depth} pipelined, ${b.route}` +
  `${b.route === 'mcp call' || b.route === 'body to a page' ? ` (${b.bodyPace} body)` : ''}, reading ${b.reading}, ` +
  `${b.headerBytes} header bytes, ${b.ending}`;

const BOTH = 'application/json, text/event-stream';
const MCP_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'get_profile', arguments: { page: 'layla' } },
});

/** A profile of the attacks' half of the generated ones (attacks.ts), by number. */
const profileOf = (context: AttackContext, n: number) =>
  `bench-${Math.ceil(context.profiles / 2) + 1 + (n % Math.max(1, Math.floor(context.profiles / 2)))}`;

/** The head (and body) of the `n`th request of `b`. */
function requestOf(b: Behaviour, context: AttackContext, n: number): { head: string; body: string } {
  const host = `Host: ${context.url.host}\r\n`;
  const padding = b.headerBytes > 0 ? `X-Padding: ${'p'.repeat(b.headerBytes)}\r\n` : '';
  const get = (path: string, extra = '') => ({
    head: `GET ${path} HTTP/1.1\r\n${host}${padding}${extra}\r\n`,
    body: '',
  });
  switch (b.route) {
    case 'static page':
      return get(pathOf('listBlogArticles', { lang: DEFAULT_LANG }));
    case 'cached page':
      return get(pathOf('getProfilePage', { page: 'layla' }));
    case 'uncached page':
      return get(pathOf('getProfilePage', { page: profileOf(context, n) }));
    case 'link-preview picture':
      return get(pathOf('getProfileOgImage', { page: profileOf(context, n) }));
    case 'vCard':
      return get('/c/k7f2q9.vcf');
    case 'sitemap part':
      return get(pathOf('getSitemapPart', { n: '2' }), 'Accept-Encoding: identity\r\n');
    case 'missing':
      return get(`/missing/${n}`, `Accept-Language: ${'x-lang;q=0.1,'.repeat(60)}ar\r\n`);
    case 'mcp call':
      return {
        head: `POST ${pathOf('mcp')} HTTP/1.1\r\n${host}${padding}Content-Type: application/json\r\nAccept: ${BOTH}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: ${MCP_BODY.length}\r\n\r\n`,
        body: MCP_BODY,
      };
    case 'body to a page': {
      const body = '['.repeat(64 * 1024);
      return {
        head: `POST ${pathOf('listBlogArticles', { lang: DEFAULT_LANG })} HTTP/1.1\r\n${host}${padding}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        body,
      };
    }
  }
}

/**
 * What the stranger writes a connection in one go is bounded on its own side: 256 MB across all its connections (a
 * connection the server stops reading keeps what it has not taken in the stranger's memory).
 */
const STRANGER_BYTES = 256 * 1024 * 1024;

/** The requests a connection of `b` writes in one go: its depth, as far as the stranger's own memory allows. */
function depthOf(b: Behaviour, context: AttackContext): number {
  const { head, body } = requestOf(b, context, 0);
  const perConnection = STRANGER_BYTES / (b.connections * b.addresses);
  return Math.max(1, Math.min(b.depth, Math.floor(perConnection / (head.length + body.length))));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (counts: AttackCounts, key: string, n = 1) => (counts[key] = (counts[key] ?? 0) + n);

/** Counts the status lines read on `socket` (a rough count: enough to say what the stranger was answered). */
function countStatuses(socket: Socket, counts: AttackCounts): void {
  let tail = '';
  socket.on('data', (data: Buffer) => {
    const text = tail + data.toString('latin1');
    for (const match of text.matchAll(/HTTP\/1\.1 (\d{3}) /g)) count(counts, match[1]!);
    tail = text.slice(-16);
  });
}

/** Writes `bytes` a byte a segment (a turn of the loop apart), until the connection goes or the time is up. */
async function drip(socket: Socket, bytes: string, end: number): Promise<void> {
  for (let i = 0; i < bytes.length && Date.now() < end && !socket.destroyed; i++) {
    if (!socket.write(bytes[i]!)) await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** One connection of the stranger's, from `address`, for as long as it lasts (or the time is up). */
async function oneConnection(b: Behaviour, context: AttackContext, address: string, counts: AttackCounts, n: number) {
  const { end } = context;
  const socket = connect({ host: context.url.hostname, port: Number(context.url.port), localAddress: address });
  count(counts, 'opened');
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => count(counts, 'error'));
  countStatuses(socket, counts);
  let slowly: NodeJS.Timeout | undefined;
  if (b.reading === 'never') socket.pause();
  if (b.reading === 'slowly') {
    socket.pause();
    slowly = setInterval(() => socket.read(1024), 100);
  }
  try {
    await new Promise<void>((resolve) => {
      socket.once('connect', resolve).once('close', resolve);
    });
    const requests = Array.from({ length: depthOf(b, context) }, (_, i) => requestOf(b, context, n * b.depth + i));
    if (b.bodyPace === 'drip' && requests.some((r) => r.body))
      for (const r of requests) {
        socket.write(r.head);
        await drip(socket, r.body, end);
      }
    // Written in one go: what Node's parser reads at once is what pipelining costs it.
    else socket.write(requests.map((r) => r.head + r.body).join(''));
    count(counts, 'sent', requests.length);
    if (b.ending === 'reset') return void socket.resetAndDestroy();
    if (b.ending === 'half-closed') socket.end();
    await Promise.race([closed, pause(Math.max(0, end - Date.now()))]);
  } finally {
    clearInterval(slowly);
    socket.destroy();
  }
}

/** Runs `b` until the context's end: each address keeps its connections open, each opened again when one closes. */
export async function runStranger(b: Behaviour, context: AttackContext): Promise<AttackCounts> {
  const counts: AttackCounts = {};
  let n = 0;
  await Promise.all(
    context.addresses.slice(0, b.addresses).flatMap((address) =>
      Array.from({ length: b.connections }, async () => {
        while (Date.now() < context.end) {
          await oneConnection(b, context, address, counts, n++);
          // A refused connection comes back at once: not a busy loop of the attacker's own.
          await pause(10);
        }
      }),
    ),
  );
  return counts;
}
