// A client that pipelines (RFC 9112 §9.3.2): every request written on one connection in one go, before any answer.
import { connect } from 'node:net';

/**
 * Writes `count` pipelined GETs of `path` on one connection from `localAddress` in one go, and reads what comes back
 * until the server closes the connection or says nothing for two seconds: how many answers of each status, and
 * whether the server closed it.
 */
export function pipeline(url: URL, localAddress: string, path: string, count: number) {
  return new Promise<{ statuses: Record<string, number>; closed: boolean }>((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress });
    const statuses: Record<string, number> = {};
    let tail = '';
    let quiet: NodeJS.Timeout | undefined;
    const done = (closed: boolean) => {
      clearTimeout(quiet);
      socket.destroy();
      resolve({ statuses, closed });
    };
    const wait = () => {
      clearTimeout(quiet);
      quiet = setTimeout(() => done(false), 2000);
    };
    socket.on('connect', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`.repeat(count));
      wait();
    });
    socket.on('data', (data: Buffer) => {
      const text = tail + data.toString('latin1');
      for (const match of text.matchAll(/HTTP\/1\.1 (\d{3}) /g)) statuses[match[1]!] = (statuses[match[1]!] ?? 0) + 1;
      tail = text.slice(-16);
      wait();
    });
    // A reset after the refusal is a close too (the server closes with the client's requests unread).
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? done(true) : reject(error)));
    socket.on('end', () => done(true));
  });
}

/**
 * A POST of `path` from `localAddress` declaring a body of `declared` bytes, sent a byte every `everyMs` after the
 * head (a body that drips): the first answer's status, how many body bytes went out after it came, and whether the
 * server closed the connection, within `forMs`. The body is never finished in that time.
 */
export function dripBody(
  url: URL,
  localAddress: string,
  path: string,
  { declared = 65_000, everyMs = 20, forMs = 15_000, headers = '' } = {},
) {
  return new Promise<{ status?: string; afterAnswer: number; closed: boolean }>((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress });
    let status: string | undefined;
    let afterAnswer = 0;
    let text = '';
    const done = (closed: boolean) => {
      clearInterval(drip);
      clearTimeout(limit);
      socket.destroy();
      resolve({ ...(status === undefined ? {} : { status }), afterAnswer, closed });
    };
    const drip = setInterval(() => {
      if (!socket.writable) return;
      socket.write('[');
      if (status !== undefined) afterAnswer++;
    }, everyMs);
    const limit = setTimeout(() => done(false), forMs);
    socket.on('connect', () =>
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\n${headers}Content-Length: ${declared}\r\n\r\n[`,
      ),
    );
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1');
      status ??= /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
    });
    socket.on('error', () => done(true));
    socket.on('end', () => done(true));
  });
}
