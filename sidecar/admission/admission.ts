// One account per client (issue 60): what the server holds on a client's behalf is shared out here, each resource by
// the limits of admission/limits.ts. The slots, lines and budgets are built once per app from its configuration and
// handed to whoever applies them (the app's hooks, the routes, the render pool, the stores): no module keeps one of
// its own, so two apps in one process (the tests run several) share nothing by accident.
//   - connections: a client's open and opened a second (connection-limits.ts), the process's in all;
//   - a connection's requests, read and answered one at a time (pipelining.ts);
//   - a client's requests in progress and its rate (clients.ts), and its turns of the event loop (loop-turns.ts);
//   - costly work under a lag (pressure.ts), the render threads (render-pool.ts), the PostgreSQL pool (pg-store.ts),
//     /mcp's slots and bodies (routes/mcp.ts) and the decompression of large documents (send.ts): in turn between
//     clients (fair-slots.ts).
// The client is named one way: clientOf (clients.ts) when a request arrives, then currentClient() in every call it
// makes (the request runs as its client's work).
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import { BodyBudget } from '../request-body.ts';
import { RequestRate, RequestsInProgress } from './clients.ts';
import { limitConnectionsPerClient } from './connection-limits.ts';
import { FairSlots } from './fair-slots.ts';
import type { Limits } from './limits.ts';
import { LoopTurns } from './loop-turns.ts';
import { Pipelining } from './pipelining.ts';

export class Admission {
  readonly limits: Limits;
  /** Requests in progress per client. */
  readonly requests: RequestsInProgress;
  /** Requests started per client, a second. */
  readonly rate: RequestRate;
  /** The event loop's turns, shared between clients. */
  readonly turns: LoopTurns;
  /** Clients reading a large document decompressed (send.ts). */
  readonly decompressing: FairSlots;
  /** /mcp requests conducted at once, in turn between clients (routes/mcp.ts). */
  readonly mcpSlots: FairSlots;
  /** The bytes /mcp bodies hold while they arrive, a client's share and every client's (routes/mcp.ts). */
  readonly mcpBodies: BodyBudget;

  /** The gates of the servers made here (one a process, or one an app in tests). */
  readonly #servers: Pipelining[] = [];

  /** Reads of client connections that brought bytes, on every server made here (bio_connection_reads_total). */
  get connectionReads(): number {
    return this.#servers.reduce((sum, gate) => sum + gate.reads, 0);
  }

  constructor(limits: Limits) {
    this.limits = limits;
    this.requests = new RequestsInProgress(limits.maxRequestsPerClient);
    this.rate = new RequestRate({ ratePerSecond: limits.requestRatePerClient, burst: limits.requestBurstPerClient });
    this.turns = new LoopTurns(this.requests, limits);
    this.decompressing = new FairSlots({
      capacity: limits.decompressSlots,
      perClient: limits.decompressSlotsPerClient,
      maxWaiting: limits.decompressWaiting,
      maxWaitMs: limits.decompressWaitMs,
    });
    // Past sixteen times the slots waiting, the client waiting most is refused.
    this.mcpSlots = new FairSlots({ capacity: limits.mcpMaxConcurrent, maxWaiting: limits.mcpMaxConcurrent * 16 });
    this.mcpBodies = new BodyBudget({ perClient: limits.mcpBodyShareBytes, total: limits.mcpBodyTotalBytes });
  }

  /** The render threads' work, in turn between clients: two tasks a thread (one running, the next ready). */
  renderSlots(threads: number): FairSlots {
    return new FairSlots({
      capacity: threads * 2,
      maxWaiting: threads * this.limits.renderWaitingPerThread,
      maxWaitMs: this.limits.renderWaitMs,
    });
  }

  /** A PostgreSQL pool's connections, in turn between clients. */
  pgSlots(poolSize: number): FairSlots {
    return new FairSlots({
      capacity: poolSize,
      maxWaiting: poolSize * this.limits.pgWaitingPerConnection,
      maxWaitMs: this.limits.pgConnectionWaitMs,
    });
  }

  /**
   * The HTTP server for `handler`: a connection's requests given to it one at a time (pipelining.ts), the process's
   * connections bounded, and each client's (the proxies `trustProxy` names excepted).
   */
  server(
    createServer: (handler: (req: IncomingMessage, res: ServerResponse) => void) => Server,
    handler: (req: IncomingMessage, res: ServerResponse) => void,
    trustProxy: string,
  ): { server: Server; pipelining: Pipelining } {
    const pipelining = new Pipelining(handler, {
      maxPipelined: this.limits.maxPipelinedRequests,
      onUngated: (why) => console.error(why),
    });
    this.#servers.push(pipelining);
    const server = createServer(pipelining.request);
    server.on('connection', pipelining.connection);
    server.maxConnections = this.limits.maxConnections;
    limitConnectionsPerClient(server, this.limits.maxConnectionsPerClient, trustProxy);
    return { server, pipelining };
  }
}
