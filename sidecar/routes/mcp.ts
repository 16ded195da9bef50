// POST /mcp: Streamable HTTP, stateless, JSON responses. This module does the HTTP, and only that: host and origin,
// admission, Accept, content type, body size (with a lingering close) and rate, each refused as a JSON-RPC error; it
// hands the body and the MCP headers to the conductor (mcp/conductor.ts), which does the JSON-RPC, and sends what
// it answers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import pLimit from 'p-limit';
import type { PublicConfig } from '../../src/lib/site-config.ts';
import type { ServerConfig } from '../config.ts';
import { CACHE, MCP_BODY_LIMIT, ROUTES } from '../../src/lib/surface.ts';
import { paths } from '../../src/lib/urls.ts';
import { mcpConductor, type McpAnswer } from '../mcp/conductor.ts';
import { mcpHandlers, type McpDeps } from '../mcp/handlers.ts';
import { bodyTooLarge, CODES, errorResponse } from '../mcp/jsonrpc.ts';

function sendJson(reply: FastifyReply, status: number, body: unknown) {
  return reply.code(status).header('cache-control', CACHE[ROUTES.mcp.cache]).type('application/json').send(JSON.stringify(body));
}

/** An HTTP refusal, as a JSON-RPC error that answers no particular request. */
function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string) {
  return sendJson(reply, status, errorResponse(null, code, message));
}

/** Loopback names, for local use; DNS rebinding sends a foreign name to a loopback address. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Hosts a browser may legitimately send: BASE_URL's, and loopback names. */
function allowedHost(host: string | undefined, config: PublicConfig): boolean {
  if (!host) return false;
  if (host.toLowerCase() === new URL(config.baseUrl).host) return true;
  return LOOPBACK.has(host.replace(/:\d+$/, '').toLowerCase());
}

function allowedOrigin(origin: string | undefined, config: PublicConfig): boolean {
  if (!origin) return true; // not a browser, or a same-origin navigation: nothing to rebind
  try {
    const u = new URL(origin);
    return u.origin === config.baseUrl || LOOPBACK.has(u.hostname);
  } catch {
    return false;
  }
}

function acceptsBoth(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '');
  return /\bapplication\/json\b/i.test(accept) && /\btext\/event-stream\b/i.test(accept);
}

/**
 * After answering 413 to a body still arriving, keep reading (and dropping) it for a while before closing, as nginx's
 * lingering close does: closing at once makes the kernel reset the connection, and a client still writing then sees
 * EPIPE instead of the answer. Bounded like nginx's lingering_time and lingering_timeout.
 */
const LINGER_MS = 30_000;
const LINGER_IDLE_MS = 5_000;

function lingerOnRefusedBody(request: FastifyRequest, reply: FastifyReply): void {
  // Without `Connection: close`, Node reads the rest of the body and drops it, and the connection stays usable after.
  reply.removeHeader('connection');
  const socket = request.raw.socket;
  const idle = socket.timeout ?? 0;
  const deadline = setTimeout(() => socket.destroy(), LINGER_MS);
  const stalled = () => socket.destroy();
  socket.setTimeout(LINGER_IDLE_MS, stalled);
  const done = () => {
    clearTimeout(deadline);
    socket.removeListener('timeout', stalled);
    socket.setTimeout(idle);
  };
  if (request.raw.readableEnded) return done();
  request.raw.once('end', done).once('close', done);
  request.raw.resume();
}

export interface McpLimits extends Pick<ServerConfig, 'mcpRateLimit' | 'mcpRateWindowSeconds' | 'mcpMaxBatch' | 'mcpMaxResponseBytes' | 'mcpMaxConcurrent'> {}

export async function mcpRoutes(app: FastifyInstance, deps: McpDeps & { limits: McpLimits }) {
  const { limits } = deps;
  const conduct = mcpConductor(mcpHandlers(deps), { maxBatch: limits.mcpMaxBatch, maxResponseBytes: limits.mcpMaxResponseBytes });
  /**
   * At most MCP_MAX_CONCURRENT requests are conducted at once, each until its answer has left (a client that does not
   * read keeps its place): what /mcp holds in memory is that many answers of MCP_MAX_RESPONSE_BYTES, whatever
   * clients send. Others wait their turn, their bodies unread; past a queue as long again times sixteen, 503.
   */
  const admission = pLimit(limits.mcpMaxConcurrent);
  const waitingAtMost = limits.mcpMaxConcurrent * 16;

  await app.register(async (scope) => {
    // Per client address; only /mcp is limited: it is the one route that does work per request.
    await scope.register(rateLimit, {
      max: limits.mcpRateLimit,
      timeWindow: limits.mcpRateWindowSeconds * 1000,
      // Thrown to the error handler below, which answers it as a JSON-RPC error (Retry-After is already set).
      errorResponseBuilder: (_request, context) => ({ statusCode: 429, message: `Too many requests: at most ${context.max} per ${context.after}; retry later` }),
    });

    // Parse the body ourselves: Fastify's JSON parser would answer malformed JSON in its own format, not JSON-RPC.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MCP_BODY_LIMIT }, (_request, body, done) => done(null, body));

    scope.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
      if (error.statusCode === 413) {
        lingerOnRefusedBody(request, reply);
        return sendJson(reply, 413, bodyTooLarge(MCP_BODY_LIMIT));
      }
      if (error.statusCode === 429) return jsonRpcError(reply, 429, CODES.serverError, error.message);
      if (error.statusCode && error.statusCode < 500) return jsonRpcError(reply, error.statusCode, CODES.invalidRequest, error.message);
      request.log.error({ err: error }, 'mcp request failed');
      return jsonRpcError(reply, 500, CODES.internalError, 'Internal error');
    });

    scope.addHook('onRequest', async (request, reply) => {
      if (!allowedHost(request.headers.host, deps.config) || !allowedOrigin(request.headers.origin, deps.config)) {
        return jsonRpcError(reply, 403, CODES.serverError, 'Forbidden: this Host or Origin may not use the MCP endpoint');
      }
      if (request.method !== 'POST') return;
      if (admission.pendingCount >= waitingAtMost) {
        return jsonRpcError(reply.header('retry-after', '1'), 503, CODES.serverError, 'Service busy: too many MCP requests are waiting; retry in a second');
      }
      // In from here until the answer has left, or the client has gone (even while it waited).
      const gone = new Promise<void>((left) => reply.raw.once('close', left));
      await new Promise<void>((admitted) => void admission(() => (admitted(), gone)));
    });

    const notAllowed = (_request: FastifyRequest, reply: FastifyReply) =>
      jsonRpcError(reply.header('allow', 'POST'), 405, CODES.serverError, 'Method not allowed: this stateless MCP endpoint answers POST only (no SSE stream, no session to delete)');
    scope.route({ method: ['GET', 'DELETE', 'PUT', 'PATCH'], url: paths.mcp, handler: notAllowed });

    const charge = scope.createRateLimit();
    scope.post(paths.mcp, async (request, reply) => {
      if (!acceptsBoth(request)) {
        return jsonRpcError(reply, 406, CODES.serverError, 'Not Acceptable: the Accept header must list both application/json and text/event-stream');
      }
      if (!/^application\/json\s*(;|$)/i.test(String(request.headers['content-type'] ?? ''))) {
        return jsonRpcError(reply, 415, CODES.serverError, 'Unsupported Media Type: the body must be JSON (Content-Type: application/json)');
      }
      const answer: McpAnswer = await conduct({
        body: request.body as string,
        protocolVersion: headerOf(request, 'mcp-protocol-version'),
        mcpMethod: headerOf(request, 'mcp-method'),
        mcpName: headerOf(request, 'mcp-name'),
        webRequest: () => webRequestOf(request),
        chargeMessages: async (n) => {
          for (let i = 0; i < n; i++) {
            const limit = await charge(request);
            if (!limit.isAllowed && limit.isExceeded) {
              return { retryAfterSeconds: limit.ttlInSeconds, message: `Too many requests: at most ${limits.mcpRateLimit} messages per ${limits.mcpRateWindowSeconds} s, each message of a batch counted; retry later` };
            }
          }
          return undefined;
        },
      });
      // Answers depend on the live database and are per request: never kept by a cache.
      reply.headers(answer.headers).header('cache-control', CACHE[ROUTES.mcp.cache]).code(answer.status);
      return answer.body === undefined ? reply.send() : reply.type('application/json').send(answer.body);
    });
  });
}

/** A header as the Web Headers API reads it (repeated values joined), or undefined. */
function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The request as a Web Request (headers only: the body is handed over parsed), for the SDK's HTTP faces, whose
 * answers go out through Fastify. Not the SDK's Node adapter: bridging Node's request and response onto Web ones and
 * streaming the answer was a tenth of the CPU of a tools/call and gave it a long latency tail (p99 410 ms at p50 20 ms).
 */
function webRequestOf(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return new Request(`http://${request.headers.host ?? 'localhost'}${request.url}`, { method: 'POST', headers });
}
