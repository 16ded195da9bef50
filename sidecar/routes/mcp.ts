// POST /mcp: Streamable HTTP, stateless, JSON responses. This module does the HTTP, and only that: host and origin,
// Accept, content type and coding, body size (with a lingering close), rate and admission to a slot, each refused as a
// JSON-RPC error; it hands the body and the MCP headers to the conductor (mcp/conductor.ts), which does the JSON-RPC,
// and sends what it answers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import type { ServerConfig } from '../config.ts';
import { pathOf, CACHE, MCP_BODY_LIMIT, RETRY_AFTER, ROUTES } from '../../src/lib/surface.ts';
import { clientGone, currentClient } from '../admission/clients.ts';
import type { RenderPool } from '../render/render-pool.ts';
import { mcpConductor, type McpAnswer } from '../mcp/conductor.ts';
import { mcpHandlers, type McpDeps } from '../mcp/handlers.ts';
import { bodyTooLarge, CODES, errorResponse } from '../mcp/jsonrpc.ts';
import { BodyRefused, readBody } from '../request-body.ts';

function sendJson(reply: FastifyReply, status: number, body: unknown) {
  return reply
    .code(status)
    .header('cache-control', CACHE[ROUTES.mcp.cache])
    .type('application/json')
    .send(JSON.stringify(body));
}

/** An HTTP refusal, as a JSON-RPC error that answers no particular request. */
function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string) {
  return sendJson(reply, status, errorResponse(null, code, message));
}

function acceptsBoth(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '');
  return /\bapplication\/json\b/i.test(accept) && /\btext\/event-stream\b/i.test(accept);
}

export type McpLimits = Pick<
  ServerConfig,
  | 'mcpRateLimit'
  | 'mcpRateWindowSeconds'
  | 'mcpMaxBatch'
  | 'mcpMaxResponseBytes'
  | 'mcpMaxConcurrent'
  | 'sendTimeoutMs'
  | 'requestTimeoutMs'
  | 'mcpBodyShareBytes'
  | 'mcpBodyTotalBytes'
  | 'mcpBodyIdleMs'
>;

/** Another method than POST (or OPTIONS) on /mcp: 405 with Allow, as JSON-RPC, whatever the method. */
export function mcpMethodNotAllowed(reply: FastifyReply) {
  return jsonRpcError(
    reply.header('allow', 'POST'),
    405,
    CODES.serverError,
    'Method not allowed: this stateless MCP endpoint answers POST only (no SSE stream, no session to delete)',
  );
}

export async function mcpRoutes(
  app: FastifyInstance,
  deps: McpDeps & { limits: McpLimits; pool: Pick<RenderPool, 'jsonString'> },
) {
  const { limits, pool } = deps;
  const conduct = mcpConductor(mcpHandlers(deps), {
    maxBatch: limits.mcpMaxBatch,
    maxResponseBytes: limits.mcpMaxResponseBytes,
    jsonString: (text) => pool.jsonString(text),
  });
  /**
   * At most MCP_MAX_CONCURRENT requests are conducted at once, each from the moment its body has arrived (a client
   * still sending holds nothing) until its answer has left, or SEND_TIMEOUT_MS after it was ready if the client is
   * not reading it (the connection is then closed): what /mcp holds in memory is that many answers of
   * MCP_MAX_RESPONSE_BYTES, and no client holds a slot longer than its own work and that bound. Others wait in turn
   * between clients (fair-slots.ts); past sixteen times the slots waiting, the client waiting most is refused, 503.
   */
  const slots = app.admission.mcpSlots;
  /** The hosts a browser may send to this endpoint (DNS rebinding sends a foreign one to a loopback address). */
  const allowedHosts = [new URL(deps.config.baseUrl).hostname, ...localhostAllowedHostnames()];
  // The bytes /mcp bodies may hold while they arrive: a client's share (eight of the largest by default: a client sends
  // one at a time, an agent in a hurry a few), and every client's together; a body that goes MCP_BODY_IDLE_MS without
  // a byte is answered 408 (nginx's client_body_timeout, shorter).
  const bodies = app.admission.mcpBodies;
  const bodyIdleMs = Math.min(limits.mcpBodyIdleMs, limits.requestTimeoutMs);
  const endpoint = `${deps.config.baseUrl}${pathOf('mcp')}`;

  await app.register(async (scope) => {
    // Per client address; only /mcp is limited: it is the one route that does work per request.
    await scope.register(rateLimit, {
      max: limits.mcpRateLimit,
      timeWindow: limits.mcpRateWindowSeconds * 1000,
      // Over IPv6 a client has a /64 of addresses: it counts as one.
      keyGenerator: () => currentClient(),
      // Thrown to the error handler below, which answers it as a JSON-RPC error (Retry-After is already set).
      errorResponseBuilder: () => ({ statusCode: 429, message: tooMany(limits) }),
    });

    // The body read by ourselves, into one bounded buffer (request-body.ts), and handed over as text: Fastify's JSON
    // parser would answer malformed JSON in its own format, not JSON-RPC, and its reader keeps every chunk.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (request, _payload, done) => {
      readBody(request.raw, {
        limit: MCP_BODY_LIMIT,
        client: currentClient(),
        budget: bodies,
        idleMs: bodyIdleMs,
      }).then(
        (bytes) => done(null, bytes.toString('utf8')),
        (err: Error) => done(err),
      );
    });

    scope.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
      if (error.statusCode === 413) return sendJson(reply, 413, bodyTooLarge(MCP_BODY_LIMIT));
      if (error instanceof BodyRefused) {
        if (error.statusCode === 408) reply.header('connection', 'close');
        else reply.header('retry-after', String(RETRY_AFTER.busy));
        return jsonRpcError(reply, error.statusCode, CODES.serverError, error.message);
      }
      if (error.statusCode === 429) return jsonRpcError(reply, 429, CODES.serverError, error.message);
      if (error.statusCode && error.statusCode < 500)
        return jsonRpcError(reply, error.statusCode, CODES.invalidRequest, error.message);
      request.log.error({ err: error }, 'mcp request failed');
      return jsonRpcError(reply, 500, CODES.internalError, 'Internal error');
    });

    // The SDK's own checks of Host and Origin (port-agnostic allowlists; a Host no URL can hold is refused, not thrown).
    scope.addHook('onRequest', async (request, reply) => {
      if (
        !validateHostHeader(request.headers.host, allowedHosts).ok ||
        !validateOriginHeader(request.headers.origin, allowedHosts).ok
      ) {
        return jsonRpcError(
          reply,
          403,
          CODES.serverError,
          'Forbidden: this Host or Origin may not use the MCP endpoint',
        );
      }
    });

    // Every other method the router knows (the rest reach the not-found handler, which answers the same).
    scope.route({
      method: ['GET', 'DELETE', 'PUT', 'PATCH', 'TRACE', 'QUERY'],
      url: pathOf('mcp'),
      handler: (_request, reply) => mcpMethodNotAllowed(reply),
    });
    // RFC 9110 §9.3.7: OPTIONS says what the resource takes, as on every other resource.
    scope.route({
      method: 'OPTIONS',
      url: pathOf('mcp'),
      handler: (_request, reply) => reply.code(204).header('allow', 'POST').header('cache-control', CACHE.none).send(),
    });

    const charge = scope.createRateLimit();
    scope.post(pathOf('mcp'), async (request, reply) => {
      if (!acceptsBoth(request)) {
        return jsonRpcError(
          reply,
          406,
          CODES.serverError,
          'Not Acceptable: the Accept header must list both application/json and text/event-stream',
        );
      }
      if (!/^application\/json\s*(;|$)/i.test(String(request.headers['content-type'] ?? ''))) {
        return jsonRpcError(
          reply,
          415,
          CODES.serverError,
          'Unsupported Media Type: the body must be JSON (Content-Type: application/json)',
        );
      }
      // RFC 9110 §8.4.1: a content coding the server does not read is 415 (else gzip bytes were parsed as JSON).
      const coding = String(request.headers['content-encoding'] ?? 'identity')
        .trim()
        .toLowerCase();
      if (coding !== 'identity' && coding !== '') {
        return jsonRpcError(
          reply,
          415,
          CODES.serverError,
          `Unsupported Media Type: Content-Encoding "${coding.slice(0, 40)}" is not read here; send the body as it is`,
        );
      }
      // A slot from here (the body has arrived) until the answer has left.
      const release = await slots.acquire(currentClient(), clientGone());
      if (!release)
        return jsonRpcError(
          reply.header('retry-after', String(RETRY_AFTER.busy)),
          503,
          CODES.serverError,
          'Service busy: too many MCP requests are waiting; retry in a second',
        );
      if (reply.raw.destroyed) return release();
      reply.raw.once('close', release);
      const answer: McpAnswer = await conduct({
        body: request.body as string,
        protocolVersion: headerOf(request, 'mcp-protocol-version'),
        mcpMethod: headerOf(request, 'mcp-method'),
        mcpName: headerOf(request, 'mcp-name'),
        webRequest: () => webRequestOf(request, endpoint),
        chargeMessages: async (n) => {
          for (let i = 0; i < n; i++) {
            const limit = await charge(request);
            if (!limit.isAllowed && limit.isExceeded)
              return { retryAfterSeconds: limit.ttlInSeconds, message: tooMany(limits) };
          }
          return undefined;
        },
      });
      // Answers depend on the live database and are per request: never kept by a cache.
      reply.headers(answer.headers).header('cache-control', CACHE[ROUTES.mcp.cache]).code(answer.status);
      // A client that does not read its answer gives its slot back with its connection, SEND_TIMEOUT_MS from now.
      const deadline = setTimeout(() => reply.raw.destroy(), limits.sendTimeoutMs).unref();
      reply.raw
        .once('close', () => clearTimeout(deadline))
        .once('finish', () => {
          clearTimeout(deadline);
          release();
        });
      return answer.body === undefined ? reply.send() : reply.type('application/json').send(answer.body);
    });
  });
}

/** The rate limit's refusal, with the limit as configured (a batch's messages each counted). */
function tooMany(limits: McpLimits): string {
  return `Too many requests: at most ${limits.mcpRateLimit} messages per ${limits.mcpRateWindowSeconds} s, each message of a batch counted; retry later`;
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
function webRequestOf(request: FastifyRequest, endpoint: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  // Our own endpoint's URL, never one made of the client's Host (a port no URL can hold threw here: a 500).
  return new Request(endpoint, { method: 'POST', headers });
}
