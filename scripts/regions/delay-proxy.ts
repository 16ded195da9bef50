// A link between two regions on one machine: a TCP proxy that adds a one-way delay to every byte in each direction,
// and can be cut (every open connection closed, new ones refused) and restored. This kernel has no netem; loopback
// addresses (127.0.0.0/8) and this proxy are all a simulation of regions needs. Used by the regions harness
// (regions.ts), its tests and the bench.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface Endpoint {
  host: string;
  port: number;
}

/**
 * Forwards what `from` sends to `to`, each chunk `delay()` ms after it arrived and never before the chunk ahead of it,
 * so the byte stream keeps its order whatever the delay does meanwhile.
 */
function delayedPipe(from: Socket, to: Socket, delay: () => number): void {
  const queue: { at: number; chunk: Buffer }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const drain = () => {
    timer = undefined;
    const now = Date.now();
    while (queue.length > 0 && queue[0]!.at <= now) to.write(queue.shift()!.chunk);
    if (queue.length > 0) timer = setTimeout(drain, queue[0]!.at - now);
    else if (ended) to.end();
  };
  from.on('data', (chunk: Buffer) => {
    const at = Math.max(Date.now() + delay(), queue.at(-1)?.at ?? 0);
    queue.push({ at, chunk });
    timer ??= setTimeout(drain, at - Date.now());
  });
  from.on('end', () => {
    ended = true;
    timer ??= setTimeout(drain, 0);
  });
}

export class DelayProxy {
  private readonly sockets = new Set<Socket>();
  private cutOff = false;
  /** Connections accepted since the proxy started (a reconnecting client shows here). */
  connections = 0;

  private readonly server: Server;
  /** Where the proxy listens: the near end of the link. */
  readonly listen: Endpoint;
  private target: Endpoint;
  private delayMs: number;

  private constructor(server: Server, listen: Endpoint, target: Endpoint, delayMs: number) {
    this.server = server;
    this.listen = listen;
    this.target = target;
    this.delayMs = delayMs;
  }

  /** A proxy on `listen` (port 0: any free one) to `target`, adding `delayMs` each way. */
  static start(listen: Endpoint, target: Endpoint, delayMs: number): Promise<DelayProxy> {
    const server = createServer();
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(listen.port, listen.host, () => {
        const address = server.address() as { port: number };
        const proxy = new DelayProxy(server, { host: listen.host, port: address.port }, target, delayMs);
        server.on('connection', (client) => proxy.accept(client));
        resolve(proxy);
      });
    });
  }

  /** The one-way delay now, in ms. */
  get delay(): number {
    return this.delayMs;
  }

  setDelay(ms: number): void {
    this.delayMs = ms;
  }

  /** Cuts the link: every open connection is closed at once and new ones are closed as they arrive, until restore(). */
  cut(): void {
    this.cutOff = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.cutOff = false;
  }

  /**
   * Leads the link somewhere else from now on (a name re-pointed at a new primary): open connections are closed, so
   * their clients reconnect, and reach `target`.
   */
  retarget(target: Endpoint): void {
    this.target = target;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  get isCut(): boolean {
    return this.cutOff;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.cutOff) {
      client.destroy();
      return;
    }
    this.connections++;
    const upstream = connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.setNoDelay(true);
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on('close', () => {
        this.sockets.delete(socket);
        (socket === client ? upstream : client).destroy();
      });
    }
    delayedPipe(client, upstream, () => this.delayMs);
    delayedPipe(upstream, client, () => this.delayMs);
  }
}
