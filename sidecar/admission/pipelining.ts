// One request of a connection at a time (issue 60). HTTP/1.1 lets a client send its next requests before the first is
// answered (pipelining, RFC 9112 §9.3.2). Node's HTTP server parses every request that arrives in one read of up to
// 64 KiB (some 1,600 short GETs) and hands each to the app at once, each with its answer held until those before it
// are written: thirty-two connections from one address, each writing 5,000 `GET /p/layla` in one go and reading
// nothing, made `npm run serve` hold 160,000 requests and their answers, and it died of heap exhaustion in 3-14 s.
// Closing such a connection once it is past a bound is not enough: the 1,600 requests of its read are parsed first,
// and Node aborts each with an error of its own (15-35 us a request); five addresses doing it at once still ran the
// heap out.
//
// So a connection is read as nginx reads it: what arrives is given to the parser SLICE bytes at a time, and no more is
// given while a request of the connection waits for its turn; the rest waits in the socket (unshifted, the socket
// paused), and what the client sends after it in the kernel. Requests are handed to the app one at a time, the next
// when the last is answered. A connection so holds one request in progress, one answer, what one slice held (a few
// dozen requests at most, of the shortest kind) and what one read brought, whatever it sends. A connection with more
// than `maxPipelined` requests unanswered (only requests of a few bytes each fit so many in a slice) is closed.
//
// What this relies on of Node's HTTP server is in node-internals.ts, with the test that fails when it changes (the
// gate then reports itself off, and Node reads the connection as before).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { lingerOnClose, takeParser } from './node-internals.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Bytes given to the parser at a time: nginx's client_header_buffer_size. A slice is never left shorter than this
 * (the last one takes the tail), so that a body arriving in large reads is still read in large pieces
 * (request-body.ts judges a piece under 1 KiB a drip).
 */
const SLICE = 1024;

/** How long a connection closed after its answer is read and dropped before it is closed (nginx's lingering_timeout). */
const LINGER_MS = 2000;

interface Connection {
  /** Node's own reader of the connection (its parser), which we give the bytes to. */
  parse: (chunk: Buffer) => void;
  /** A request of the connection is being answered. */
  busy: boolean;
  /** Requests read after it, waiting for their turn, in order. */
  waiting: [IncomingMessage, ServerResponse][];
  /** Closed for sending more than its share: what the parser still hands over is dropped. */
  closed: boolean;
  /** The read being given to the parser now, whole (what Node would have parsed at once). */
  read: Buffer | undefined;
}

export interface PipeliningOptions {
  /** Requests a connection may have sent and not been answered, the one in progress among them. */
  maxPipelined: number;
  /** Told once if Node's server no longer reads a connection as this expects (the gate is then off). */
  onUngated?: (why: string) => void;
}

export class Pipelining {
  readonly #handler: Handler;
  readonly #options: PipeliningOptions;
  readonly #connections = new WeakMap<Socket, Connection>();
  #warned = false;
  /**
   * Reads of its connections that brought bytes (each a read call of the event loop's thread): what a body sent a byte
   * a segment costs unless it is read in batches (request-body.ts). Counted here, where every read arrives, not from
   * the process's read calls, which also count each wake-up another thread gives the loop.
   */
  reads = 0;

  constructor(handler: Handler, options: PipeliningOptions) {
    this.#handler = handler;
    this.#options = options;
  }

  /** Whether `socket` is read through the gate. */
  gated(socket: Socket): boolean {
    return this.#connections.has(socket);
  }

  /** For the server's 'connection' event, after Node's own listener (which the server registers first). */
  readonly connection = (socket: Socket): void => {
    const parse = takeParser(socket);
    if (typeof parse === 'string') return this.#ungated(parse);
    const connection: Connection = {
      parse,
      busy: false,
      waiting: [],
      closed: false,
      read: undefined,
    };
    this.#connections.set(socket, connection);
    socket.on('data', (chunk: Buffer) => {
      this.reads++;
      this.#feed(socket, connection, chunk);
    });
    // Held for Node's own pause (an answer not yet drained): read again once it is.
    socket.on('drain', () => this.#readOn(socket, connection));
  };

  /** The server's request handler: `handler`, given each connection's requests one at a time. */
  readonly request: Handler = (req, res) => {
    const connection = this.#connections.get(req.socket);
    if (!connection) return this.#handler(req, res);
    if (connection.closed || req.socket.destroyed) return;
    if (!connection.busy) return this.#start(req.socket, connection, req, res);
    if (connection.waiting.length + 2 > this.#options.maxPipelined) {
      connection.closed = true;
      connection.waiting = [];
      req.socket.destroy();
      return;
    }
    connection.waiting.push([req, res]);
  };

  /**
   * Closes the connection of `res` once `res` has left: its client pays for its next request with a new connection.
   * Nothing more it sends is made a request; what it still sends is read and dropped for a moment before the
   * connection is closed, as nginx's lingering close does (closed with bytes unread, the kernel sends a reset, and the
   * client loses the answer it has not read yet, this one among them).
   */
  closeAfter(res: ServerResponse): void {
    const socket = res.socket ?? res.req.socket;
    const connection = this.#connections.get(socket);
    // The client is told (`Connection: close`); Node ends the connection once the answer is written.
    res.setHeader('connection', 'close');
    if (!connection) return;
    lingerOnClose(socket, () => {
      connection.closed = true;
      connection.waiting = [];
      socket.resume();
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    });
  }

  /**
   * The read of `socket` the parser is in now, whole: what a request it cannot read began with (the parser names only
   * the slice it failed in), for an answer that depends on the method (client-errors.ts).
   */
  readOf(socket: Socket): Buffer | undefined {
    return this.#connections.get(socket)?.read;
  }

  /** Gives `chunk` to the parser a slice at a time, while nothing of the connection waits; holds the rest. */
  #feed(socket: Socket, connection: Connection, chunk: Buffer): void {
    // Kept while the parser is in it (a request it cannot read is answered then, synchronously), not after: an idle
    // connection would hold its last read.
    connection.read = chunk;
    try {
      let at = 0;
      while (at < chunk.length) {
        if (socket.destroyed || connection.closed) return;
        // Node asserts that it is not paused when it parses: it pauses only while the answer needs draining.
        if (connection.waiting.length > 0 || socket.writableNeedDrain) {
          socket.pause();
          socket.unshift(chunk.subarray(at));
          return;
        }
        const end = chunk.length - at < 2 * SLICE ? chunk.length : at + SLICE;
        connection.parse(chunk.subarray(at, end));
        at = end;
      }
    } finally {
      connection.read = undefined;
    }
  }

  #start(socket: Socket, connection: Connection, req: IncomingMessage, res: ServerResponse): void {
    connection.busy = true;
    // 'close' comes once the answer is written, or the connection is gone: the next request's turn, unless the
    // connection is gone. Its client left (a reset, or a write to it failed); what it pipelined is not started: each
    // was its lookups and an answer written to a closed socket, thousands after a crawler left (issue 60).
    res.once('close', () => {
      connection.busy = false;
      if (socket.destroyed) {
        connection.waiting = [];
        return;
      }
      const next = connection.waiting.shift();
      if (next) return this.#start(socket, connection, ...next);
      this.#readOn(socket, connection);
    });
    this.#handler(req, res);
  }

  /** Reads the connection again (what it holds first) when nothing of it waits and its answers have drained. */
  #readOn(socket: Socket, connection: Connection): void {
    if (connection.closed || socket.destroyed || connection.waiting.length > 0 || socket.writableNeedDrain) return;
    if (socket.isPaused()) socket.resume();
  }

  #ungated(why: string): void {
    if (this.#warned) return;
    this.#warned = true;
    this.#options.onUngated?.(
      `Node's HTTP server reads a connection otherwise than the pipelining gate expects (${why}): pipelined requests are read as Node reads them`,
    );
  }
}
