// Every limit the sidecar holds a client to, and every bound on what it holds for one (issue 60), in one table: its
// variable, its default and the range the configuration accepts (sidecar/config.ts builds its schema from this, and
// docs/configuration.md lists each, held to the same defaults by test/unit/config.test.ts). Nothing else in the
// sidecar writes a limit down: the modules that apply one are given it (sidecar/admission/admission.ts builds the
// shared slots, lines and budgets from the configuration and hands them to the routes, the render pool and the
// stores). A newcomer looking for a limit looks here.
import { MCP_BODY_LIMIT } from '../../src/lib/surface.ts';

export interface Limit {
  /** The environment variable that sets it. */
  readonly variable: string;
  readonly default: number;
  readonly min: number;
  readonly max: number;
}

const limit = (variable: string, fallback: number, min: number, max: number): Limit => ({
  variable,
  default: fallback,
  min,
  max,
});

const MB = 1024 * 1024;
/** The largest /mcp request body, for the body budgets below. */
const MCP_BODY = MCP_BODY_LIMIT;

export const LIMITS = {
  // Connections, and what one holds.
  /** Connections open at once; past it a new one is closed at once. */
  maxConnections: limit('MAX_CONNECTIONS', 2048, 1, 1_000_000),
  /** Connections one client may hold open at once, and open in a second (with a burst of as many). */
  maxConnectionsPerClient: limit('MAX_CONNECTIONS_PER_CLIENT', 64, 1, 1_000_000),
  /** Connections the kernel completes and holds for the process to take (capped by net.core.somaxconn). */
  listenBacklog: limit('LISTEN_BACKLOG', 4096, 1, 65_535),
  /** Requests one connection may have sent and not been answered (read and answered one at a time). */
  maxPipelinedRequests: limit('MAX_PIPELINED_REQUESTS', 64, 1, 10_000),
  /** The whole request (headers and body) must arrive within this; else 408 and the connection is closed. */
  requestTimeoutMs: limit('REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
  /** A connection with no traffic for this long is closed. */
  idleTimeoutMs: limit('IDLE_TIMEOUT_MS', 75_000, 100, 3_600_000),
  /** An answer the client stops reading loses its connection after this long. */
  sendTimeoutMs: limit('SEND_TIMEOUT_MS', 10_000, 100, 3_600_000),

  // Requests.
  /** Requests one client may have in progress at once; past it, 429. */
  maxRequestsPerClient: limit('MAX_REQUESTS_PER_CLIENT', 64, 1, 1_000_000),
  /** Requests one client may start a second, on average; past it and its burst, 429. */
  requestRatePerClient: limit('REQUEST_RATE_PER_CLIENT', 100, 1, 1_000_000),
  /** Requests one client may start at once beyond its rate. */
  requestBurstPerClient: limit('REQUEST_BURST_PER_CLIENT', 400, 1, 1_000_000),
  /** Requests in progress a client may have and still count as light (a browser's six connections to one host). */
  lightRequests: limit('LIGHT_REQUESTS', 6, 1, 1000),
  /** Requests of heavy clients started in one turn of the event loop. */
  requestsPerTurn: limit('REQUESTS_PER_TURN', 8, 1, 1000),
  /** A light client's requests read in one turn that are started at once (the rest after every other client's). */
  lightRequestsPerTurn: limit('LIGHT_REQUESTS_PER_TURN', 2, 1, 1000),
  /** The event loop's mean delay past which costly work is refused (load shed) and /health is degraded. */
  maxEventLoopDelayMs: limit('MAX_EVENT_LOOP_DELAY_MS', 100, 1, 60_000),

  // Bodies.
  /**
   * What a client may still send after the answer to a body no route takes: a form's worth, not a stream (eight
   * connections sending 1 MiB bodies to a page at loopback speed cost the event loop a core's worth of reading; five
   * addresses doing it with 256 KiB read of each put another reader's cached page at p90 12-14 ms, baseline 3-6, and
   * with 64 KiB at 5.5-5.8). A body /mcp refuses for its size is read to its end (within the time bounds), so that
   * the agent sending it reads the 413.
   */
  unreadBodyLingerBytes: limit('UNREAD_BODY_LINGER_BYTES', 64 * 1024, 0, 1024 * MB),
  /** Bytes /mcp bodies of one client may hold while they arrive. */
  mcpBodyShareBytes: limit('MCP_BODY_SHARE_BYTES', 8 * MCP_BODY, MCP_BODY, 1024 * MB),
  /** Bytes /mcp bodies may hold while they arrive, every client's together. */
  mcpBodyTotalBytes: limit('MCP_BODY_TOTAL_BYTES', 256 * MCP_BODY, MCP_BODY, 16 * 1024 * MB),
  /** A /mcp body that goes this long without a byte is answered 408. */
  mcpBodyIdleMs: limit('MCP_BODY_IDLE_MS', 10_000, 100, 3_600_000),

  // /mcp.
  /** JSON-RPC messages to /mcp allowed per client in each window. */
  mcpRateLimit: limit('MCP_RATE_LIMIT', 120, 1, 1_000_000),
  mcpRateWindowSeconds: limit('MCP_RATE_WINDOW_SECONDS', 60, 1, 86_400),
  /** JSON-RPC messages in one /mcp batch at most. */
  mcpMaxBatch: limit('MCP_MAX_BATCH', 10, 1, 1000),
  /** Bytes of one /mcp response at most. */
  mcpMaxResponseBytes: limit('MCP_MAX_RESPONSE_BYTES', 4 * MB, 1024, 256 * MB),
  /** /mcp requests conducted at once. */
  mcpMaxConcurrent: limit('MCP_MAX_CONCURRENT', 4, 1, 1000),

  // Large documents sent decompressed (a sitemap part to a client that takes no coding).
  /** Clients reading one at once, every client's together. */
  decompressSlots: limit('DECOMPRESS_SLOTS', 16, 1, 10_000),
  /** Of which one client's. */
  decompressSlotsPerClient: limit('DECOMPRESS_SLOTS_PER_CLIENT', 4, 1, 10_000),
  /** Waiting for one, every client's together. */
  decompressWaiting: limit('DECOMPRESS_WAITING', 64, 0, 100_000),
  /** The longest a client waits for one before it is asked to retry. */
  decompressWaitMs: limit('DECOMPRESS_WAIT_MS', 10_000, 0, 600_000),
  /** A client that stops reading for this long loses its connection and its place. */
  decompressStallMs: limit('DECOMPRESS_STALL_MS', 2000, 100, 600_000),
  /** How fast one is sent on one connection. */
  identityBytesPerSecond: limit('IDENTITY_BYTES_PER_SECOND', MB, 1024, 1024 * MB),

  // Renders.
  /** Renders waiting per render thread at most; past it, 503. */
  renderWaitingPerThread: limit('RENDER_WAITING_PER_THREAD', 256, 1, 100_000),
  /** The longest a render waits for a thread; past it, 503. */
  renderWaitMs: limit('RENDER_WAIT_MS', 5000, 10, 600_000),

  // PostgreSQL.
  /** Connections per sidecar for the clients' reads. */
  pgPoolSize: limit('PG_POOL_SIZE', 10, 1, 1000),
  /** The longest a query may run. */
  pgStatementTimeoutMs: limit('PG_STATEMENT_TIMEOUT_MS', 2000, 10, 600_000),
  /** Reads that may wait for a connection, per connection of the pool, every client's together. */
  pgWaitingPerConnection: limit('PG_WAITING_PER_CONNECTION', 64, 0, 100_000),
  /** The longest a read waits for a connection. */
  pgConnectionWaitMs: limit('PG_CONNECTION_WAIT_MS', 2000, 10, 600_000),
} as const satisfies Record<string, Limit>;

/** Every limit's value, by name. */
export type Limits = { readonly [K in keyof typeof LIMITS]: number };
