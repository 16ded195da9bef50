// Request bodies: read into one bounded buffer, shared out per client, and dropped unread where no route takes one.
// A body arrives in as many chunks as its client likes (one byte a TCP segment): a Buffer kept per chunk costs some
// 200 bytes of heap each, and sixty-four connections dripping bodies so ran the sidecar out of its heap (issue 46).
// Here each chunk is copied into the body's own buffer and dropped at once; the buffer grows with what has arrived,
// never with what the client declared; every body's bytes count against its client's share and the process's total,
// and a body that stops arriving is answered 408, as nginx's client_body_timeout does. And a body that arrives in small
// pieces is read a batch at a time (SmallReads), not a read call, an event and a parser call for every byte.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readingHandle, type ReadingHandle } from './admission/node-internals.ts';

/** A body refused: the status it is answered with, and why. */
export class BodyRefused extends Error {
  override name = 'BodyRefused';
  readonly statusCode: 408 | 413 | 429 | 503;
  constructor(statusCode: 408 | 413 | 429 | 503, message: string) {
    super(message);
    this.statusCode = statusCode;
  }
}

interface Held {
  client: string;
  bytes: number;
  refuse: (why: BodyRefused) => void;
}

/**
 * The bytes bodies hold while they arrive, per client and in all. Past its client's share a body is refused (429);
 * when the whole is spent, the client holding most loses its newest body (503) before anyone else waits: one client
 * sending many bodies at once is refused before a client sending one.
 */
export class BodyBudget {
  readonly #perClient: number;
  readonly #total: number;
  #used = 0;
  readonly #byClient = new Map<string, Set<Held>>();

  constructor({ perClient, total }: { perClient: number; total: number }) {
    this.#perClient = perClient;
    this.#total = total;
  }

  /** Bytes held now, in all. */
  get used(): number {
    return this.#used;
  }

  open(client: string, refuse: (why: BodyRefused) => void): Held {
    const held: Held = { client, bytes: 0, refuse };
    const set = this.#byClient.get(client) ?? new Set<Held>();
    set.add(held);
    this.#byClient.set(client, set);
    return held;
  }

  /** Grows `held` by `bytes`; a refusal when its client's share or the whole cannot take them. */
  grow(held: Held, bytes: number): BodyRefused | undefined {
    const mine = this.#bytesOf(held.client);
    if (mine + bytes > this.#perClient)
      return new BodyRefused(
        429,
        `Too many requests: this client's bodies in progress would hold more than ${this.#perClient} bytes; send one at a time`,
      );
    while (this.#used + bytes > this.#total) {
      const heaviest = this.#heaviest();
      if (!heaviest || heaviest === held.client || this.#bytesOf(heaviest) <= mine + bytes)
        return new BodyRefused(503, 'Service busy: too many request bodies are arriving now; retry in a second');
      const newest = [...this.#byClient.get(heaviest)!].pop()!;
      this.close(newest);
      newest.refuse(new BodyRefused(503, 'Service busy: too many request bodies are arriving now; retry in a second'));
    }
    held.bytes += bytes;
    this.#used += bytes;
    return undefined;
  }

  close(held: Held): void {
    const set = this.#byClient.get(held.client);
    if (!set?.delete(held)) return;
    this.#used -= held.bytes;
    held.bytes = 0;
    if (set.size === 0) this.#byClient.delete(held.client);
  }

  #bytesOf(client: string): number {
    let bytes = 0;
    for (const held of this.#byClient.get(client) ?? []) bytes += held.bytes;
    return bytes;
  }

  #heaviest(): string | undefined {
    let heaviest: string | undefined;
    let most = -1;
    for (const client of this.#byClient.keys()) {
      const bytes = this.#bytesOf(client);
      if (bytes > most) [heaviest, most] = [client, bytes];
    }
    return heaviest;
  }
}

export interface ReadBodyOptions {
  /** The most a body may hold (a declared Content-Length over it is refused before anything is read). */
  limit: number;
  client: string;
  budget: BodyBudget;
  /** The longest the body may go without a byte arriving (408 after). */
  idleMs: number;
}

/** A read that brought fewer bytes than this, with more of the body to come, is a small one. */
const SMALL_READ_BYTES = 1024;
/**
 * How long a connection is left unread after a small read: the first pause, doubled after each small read that
 * follows one, up to the last. A read of a whole segment or more starts again from the first.
 */
const SMALL_READ_PAUSE_MS = 20;
const SMALL_READ_LONGEST_PAUSE_MS = 320;

/**
 * After a small read of a body still arriving, leave its connection unread for a moment: what arrives meanwhile waits
 * in the kernel, which gathers it (and, its window filling, has the sender send fewer, larger segments), and is then
 * read in one call. A body sent a byte a TCP segment otherwise costs the one thread a read call, an event and a parser
 * call a byte: sixty-four connections from one address doing it put another reader's cached page at 2-4x its p99
 * (issue 46). A client sending whole segments never pauses; one sending pieces waits at most a pause after its last.
 * The pauses grow while the pieces keep coming small (20 ms, then 40, … 320): at 20 ms each, five addresses dripping
 * sixty-four bodies each still cost the one thread half a core, about 50 read calls a second a connection.
 */
class SmallReads {
  readonly #socket: Socket;
  #timer: NodeJS.Timeout | undefined;
  #stopped: ReadingHandle | undefined;
  #pause = SMALL_READ_PAUSE_MS;

  constructor(socket: Socket) {
    this.#socket = socket;
  }

  /** After a read of `bytes`, with more of the body to come. */
  read(bytes: number): void {
    if (bytes >= SMALL_READ_BYTES) this.#pause = SMALL_READ_PAUSE_MS;
    if (bytes >= SMALL_READ_BYTES || this.#timer || this.#socket.destroyed) return;
    const handle = readingHandle(this.#socket);
    if (!handle?.reading) return;
    handle.readStop();
    this.#stopped = handle;
    this.#timer = setTimeout(() => this.#restart(), this.#pause);
    this.#pause = Math.min(this.#pause * 2, SMALL_READ_LONGEST_PAUSE_MS);
  }

  /** The body ended (or was given up): the connection is read as before. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#restart();
  }

  #restart(): void {
    const handle = this.#stopped;
    this.#timer = this.#stopped = undefined;
    // Unless Node paused the connection meanwhile (it then starts it again itself), or it is gone.
    if (handle?.reading && readingHandle(this.#socket) === handle && !this.#socket.destroyed) handle.readStart();
  }
}

/** Connections whose body is held (holdBody), with the stream that was stopped. */
const heldBodies = new WeakMap<Socket, ReadingHandle>();

/**
 * Reads no more of a request's body until its reader comes (readBody, or lingerOnUnreadBody after the answer, which
 * every request with a body reaches): what arrives meanwhile waits in the kernel. Node's HTTP parser otherwise read
 * every segment of it as it came while the request waited for its turn or a route was prepared, a read call a byte
 * for a body sent a byte a segment (a cold process: 739 read calls on its main thread for eight such bodies of 4,000
 * bytes, about 100 with the bodies held).
 */
export function holdBody(raw: IncomingMessage): void {
  const handle = readingHandle(raw.socket);
  if (raw.complete || !handle?.reading || heldBodies.has(raw.socket)) return;
  handle.readStop();
  heldBodies.set(raw.socket, handle);
}

/** The connection's body is read again, if holdBody held it (and Node has not paused the stream meanwhile). */
function releaseBody(socket: Socket): void {
  const handle = heldBodies.get(socket);
  if (!handle) return;
  heldBodies.delete(socket);
  if (handle.reading && readingHandle(socket) === handle && !socket.destroyed) handle.readStart();
}

/** The first buffer of a body of unknown or large length; it doubles as bytes arrive. */
const FIRST_BUFFER = 16 * 1024;

/** Reads `raw`'s body into one buffer; rejects with BodyRefused (the caller answers it and lets the rest linger). */
export function readBody(raw: IncomingMessage, options: ReadBodyOptions): Promise<Buffer> {
  const { limit, client, budget, idleMs } = options;
  const declared = raw.headers['content-length'] === undefined ? undefined : Number(raw.headers['content-length']);
  if (declared !== undefined && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise<Buffer>((resolve, reject) => {
    let buffer = Buffer.allocUnsafe(Math.min(declared ?? FIRST_BUFFER, FIRST_BUFFER, limit));
    let length = 0;
    let settled = false;
    const reads = new SmallReads(raw.socket);
    const finish = (error: BodyRefused | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      reads.stop();
      raw.removeListener('data', onData).removeListener('end', onEnd).removeListener('close', onAborted);
      budget.close(held);
      if (error) reject(error);
      else resolve(buffer.subarray(0, length));
    };
    const idle = setTimeout(
      () =>
        finish(new BodyRefused(408, `Request timeout: no byte of the body arrived for ${Math.round(idleMs / 1000)} s`)),
      idleMs,
    );
    const held = budget.open(client, finish);
    const refused = budget.grow(held, buffer.length);
    if (refused) return finish(refused);
    function onData(chunk: Buffer) {
      if (length + chunk.length > limit) return finish(tooLarge(limit));
      if (length + chunk.length > buffer.length) {
        const size = Math.min(Math.max(buffer.length * 2, length + chunk.length), declared ?? limit, limit);
        const refusal = budget.grow(held, size - buffer.length);
        if (refusal) return finish(refusal);
        const grown = Buffer.allocUnsafe(size);
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      chunk.copy(buffer, length);
      length += chunk.length;
      idle.refresh();
      if (length !== declared) reads.read(chunk.length);
    }
    function onEnd() {
      finish(undefined);
    }
    function onAborted() {
      finish(new BodyRefused(408, 'Request timeout: the client went away before its body arrived'));
    }
    raw.on('data', onData).once('end', onEnd).once('close', onAborted);
    releaseBody(raw.socket);
  });
}

/** What a client is told whose body is over `limit` bytes (the front and the edge say it in the same words). */
export const tooLargeMessage = (limit: number) => `Payload too large: a request body may hold ${limit} bytes at most`;

function tooLarge(limit: number): BodyRefused {
  return new BodyRefused(413, tooLargeMessage(limit));
}

/**
 * After answering a body that is still arriving (refused, or taken by no route), keep reading it and dropping each
 * chunk for a while, as nginx's lingering close does: closing at once makes the kernel reset the connection, and a
 * client still writing then sees EPIPE instead of the answer. Bounded like nginx's lingering_time and
 * lingering_timeout, and (`maxBytes`) in bytes. A client still sending after any of them loses its connection.
 */
const LINGER_MS = 30_000;
const LINGER_IDLE_MS = 5_000;

/**
 * How long a connection whose body is left unread stays open after its answer: for the client to read the answer
 * before the reset that closing a connection with unread bytes sends (nginx's lingering_timeout is 5 s).
 */
const UNREAD_CLOSE_MS = 2_000;

export function lingerOnUnreadBody(request: FastifyRequest, reply: FastifyReply, maxBytes = Infinity): void {
  // Without `Connection: close`, Node reads the rest of the body and drops it, and the connection stays usable after.
  reply.removeHeader('connection');
  const raw = request.raw;
  const socket = raw.socket;
  if (raw.readableEnded || socket.destroyed) return releaseBody(socket);
  // A body declared longer than the client may still send would be given up anyway, and one sent chunked (its length
  // unknown) still arriving may be: neither is read at all (held as it is since its head, or stopped now), and after
  // its answer the connection is closed. Read and dropped, each 64 KiB chunk was a buffer made and collected: five
  // addresses sending 1 MiB bodies to a page made the sidecar run a full garbage collection three times a second
  // (thirty-two in ten seconds, one without them).
  const length = raw.headers['content-length'];
  const leftUnread = !raw.complete && Number.isFinite(maxBytes) && (length === undefined || Number(length) > maxBytes);
  if (leftUnread) {
    if (!heldBodies.has(socket)) readingHandle(socket)?.readStop();
    reply.raw.once('finish', () =>
      // Once the parser is through what was read with the request (an answer made at once may finish between its
      // callbacks): a chunked body whole in it goes on as any other, the connection kept for the next request.
      setImmediate(() => {
        if (raw.complete) return releaseBody(socket);
        socket.end();
        setTimeout(() => socket.destroy(), UNREAD_CLOSE_MS).unref();
      }),
    );
  }
  const idle = socket.timeout ?? 0;
  const deadline = setTimeout(() => socket.destroy(), LINGER_MS);
  const stalled = () => socket.destroy();
  socket.setTimeout(LINGER_IDLE_MS, stalled);
  let dropped = 0;
  // What was read with the request is dropped as it comes; a body left unread is not read again, even in batches.
  const reads = leftUnread ? undefined : new SmallReads(socket);
  const count = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > maxBytes) socket.destroy();
    else reads?.read(chunk.length);
  };
  const done = () => {
    clearTimeout(deadline);
    reads?.stop();
    socket.removeListener('timeout', stalled);
    raw.removeListener('data', count);
    socket.setTimeout(idle);
  };
  raw.on('data', count).once('end', done).once('close', done);
  raw.resume();
  if (!leftUnread) releaseBody(socket);
}

/** Whether the request announces a body (RFC 9112 §6.3: a Content-Length over 0, or a Transfer-Encoding). */
export function hasBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
