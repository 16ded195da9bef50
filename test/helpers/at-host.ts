// Requests to a host name that resolves to the server under test, as DNS would resolve an owner's domain to the front:
// a real HTTP client (node:http) asks `http://{host}:{port}/…`, its Host header the name's, its connection to the
// server's own loopback address. fetch() cannot: it sends the Host of the address it connects to.
import { request } from 'node:http';

export interface HostAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  header(name: string): string | undefined;
  body: Buffer;
  text: string;
}

/** A GET (or `method`) of `path` at `host`, connected to the server at `serverUrl` (`http://127.0.0.1:PORT`). */
export function getAt(
  serverUrl: string,
  host: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<HostAnswer> {
  const server = new URL(serverUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host,
        port: server.port,
        path,
        method,
        headers,
        // The name resolves to the server's address, whatever it is.
        lookup: (_name, options, callback) =>
          options.all
            ? (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
                { address: server.hostname, family: 4 },
              ])
            : (callback as (e: null, a: string, f: number) => void)(null, server.hostname, 4),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const header = (name: string) => {
            const value = res.headers[name.toLowerCase()];
            return Array.isArray(value) ? value.join(', ') : value;
          };
          resolve({ status: res.statusCode ?? 0, headers: res.headers, header, body, text: body.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
