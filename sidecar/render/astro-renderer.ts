// Renders an on-demand Astro page (dist/server) to bytes, so that the sidecar can cache it.
// The Node adapter's handler only writes to a Node response; we hand it one that collects the body.
import { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { LiveLocals } from '../../src/lib/live-content.ts';

type AstroHandler = (req: IncomingMessage, res: unknown, next: () => void, locals: LiveLocals) => Promise<void>;

class RenderError extends Error {
  override name = 'RenderError';
}

export interface AstroRenderer {
  render(path: string, locals: LiveLocals): Promise<Buffer>;
}

export async function loadAstroRenderer(serverEntry: string): Promise<AstroRenderer> {
  const { handler } = (await import(pathToFileURL(serverEntry).href)) as { handler: AstroHandler };
  return {
    render: (path, locals) =>
      new Promise<Buffer>((resolve, reject) => {
        // A socket that is only a remote address. Given a real (unconnected) net.Socket, Astro ties an
        // AbortController to its 'close' event, which never comes: each render then kept its socket, request and
        // signal alive (2,964 sockets in a heap snapshot after 10 s of renders; see docs/benchmarks/overview.md).
        const req = new IncomingMessage({ remoteAddress: '127.0.0.1' } as Socket);
        req.method = 'GET';
        req.url = path;
        req.headers = { host: 'localhost', accept: 'text/html' };
        req.push(null);
        const chunks: Buffer[] = [];
        let status = 200;
        const res = {
          req,
          statusCode: 200,
          statusMessage: '',
          headersSent: false,
          writeHead(code: number) {
            status = code;
            this.headersSent = true;
            return this;
          },
          setHeader() {
            return this;
          },
          write(chunk: Uint8Array | string) {
            chunks.push(Buffer.from(chunk));
            return true;
          },
          end(chunk?: Uint8Array | string) {
            if (chunk) chunks.push(Buffer.from(chunk));
            if (!this.headersSent) status = this.statusCode;
            if (status === 200) resolve(Buffer.concat(chunks));
            else reject(new RenderError(`Astro answered ${status} for ${path}`));
            return this;
          },
          destroy(err?: Error) {
            reject(err ?? new RenderError(`rendering ${path} was aborted`));
          },
          on() {
            return this;
          },
          once() {
            return this;
          },
          off() {
            return this;
          },
          removeListener() {
            return this;
          },
        };
        handler(req, res, () => reject(new RenderError(`no Astro route for ${path}`)), locals).catch(reject);
      }),
  };
}
