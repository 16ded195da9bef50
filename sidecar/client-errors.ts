// What the server answers when Node cannot make a request of what a client sent: a head over 16 KiB (431), a request
// that did not arrive in time (408), bytes that are not HTTP (400). Fastify's own answer to these is JSON without the
// security headers every other answer carries, with a body even to a HEAD (which a client then reads as the start of
// the next answer) and a reset right after it. Ours: the same headers as every answer, plain text, no body for HEAD,
// and a closing connection that lets the client read it.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { CACHE } from '../src/lib/surface.ts';

const WHY: Record<number, string> = {
  400: 'Bad request: this is not an HTTP request this server can read.',
  408: 'Request timeout: the request did not arrive whole in time.',
  431: 'Request header fields too large: the request line and headers may hold 16 KiB at most.',
};

/** How long a closing connection may take to be read before it is dropped. */
const CLOSE_GRACE_MS = 2000;

function statusOf(code: string | undefined): number {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  return 400;
}

/**
 * Fastify's clientErrorHandler, answering with `headers` (the security headers every answer carries). `readOf`: the
 * read of a connection its parser was in (admission/pipelining.ts gives the parser a read in slices).
 */
export function clientErrorHandler(
  headers: Record<string, string>,
  readOf: (socket: Socket) => Buffer | undefined = () => undefined,
) {
  const fixed = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (err: Error & { code: string; rawPacket?: unknown }, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const status = statusOf(err.code);
    const body = `${WHY[status]}\n`;
    // The method, when the packet that failed still holds the request line.
    const packet = readOf(socket) ?? err.rawPacket;
    const head = Buffer.isBuffer(packet) && packet.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${fixed}content-type: text/plain; charset=utf-8\r\ncache-control: ${CACHE.none}\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${head ? '' : body}`,
    );
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  };
}
