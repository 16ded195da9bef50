// What the sidecar relies on of Node's internals, in one place (issue 60): nothing else may reach past Node's public
// API. test/unit/node-internals.test.ts fails, naming what changed, when a Node upgrade changes any of it; the features
// that stand on it then fall back to Node's own behaviour (a defence off, never a crash), and say so.
//
// 1. A connection's libuv stream (`socket._handle`), with `readStop`, `readStart` and `reading`, which Node's net and
//    http modules start and stop (`reading` is their record of whether it reads). A body held until its reader comes,
//    and a body arriving in small pieces, stop the stream itself and leave `reading` true (request-body.ts):
//    `socket.pause()` does not hold, as the http server starts the stream again whenever the request's reader asks
//    for more, and a paused socket still reads what arrives into its buffer, a read call a byte for a body sent a byte
//    a segment. Node's own pause (backpressure) still sets `reading` false, and the pause then ends with Node's.
// 2. Node's HTTP server reads a connection through one 'data' listener of its own once one is added (it then stops
//    reading the handle itself), and pauses the socket only while the socket's writable side needs draining
//    (pipelining.ts, which reads a connection to the parser a slice at a time).
// 3. After an answer that says `Connection: close`, the HTTP server closes the connection with `socket.destroySoon()`:
//    destroyed once its end is written, with whatever the client sent still unread, which makes the kernel reset the
//    connection, and the client loses the answer it has not read yet (pipelining.ts closeAfter lingers instead).
import type { Socket } from 'node:net';

export interface ReadingHandle {
  reading: boolean;
  readStart(): number;
  readStop(): number;
}

/** `socket`'s libuv stream, or undefined when Node no longer gives one that can be stopped (see 1 above). */
export function readingHandle(socket: Socket): ReadingHandle | undefined {
  const handle = (socket as unknown as { _handle?: Partial<ReadingHandle> | null })._handle;
  return typeof handle?.readStop === 'function' && typeof handle.readStart === 'function'
    ? (handle as ReadingHandle)
    : undefined;
}

/**
 * Node's own reader of a connection of an HTTP server, taken out of the socket's 'data' listeners, or a reason why it
 * cannot be (see 2 above). Called in the server's 'connection' event, after Node's own listener.
 */
export function takeParser(socket: Socket): ((chunk: Buffer) => void) | string {
  const readers = socket.listeners('data');
  const parse = readers[0];
  if (readers.length !== 1 || typeof parse !== 'function') return `${readers.length} readers of a connection`;
  socket.removeListener('data', parse as (chunk: Buffer) => void);
  return parse as (chunk: Buffer) => void;
}

/**
 * Makes the HTTP server's close of `socket` after an answer (see 3 above) end the connection and call `linger` (which
 * reads and drops what still comes) instead of destroying it at once; false when Node no longer closes so (the close
 * is then Node's own).
 */
export function lingerOnClose(socket: Socket, linger: () => void): boolean {
  const closing = socket as Socket & { destroySoon?: unknown };
  if (typeof closing.destroySoon !== 'function') return false;
  closing.destroySoon = () => {
    socket.end();
    linger();
  };
  return true;
}
