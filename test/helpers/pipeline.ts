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
