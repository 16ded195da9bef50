// POST /mcp: Streamable HTTP, stateless, JSON responses. This module does the HTTP: host and origin, Accept, content
// type, size and rate, refused as JSON-RPC errors; which leg a request takes; the answer sent. The JSON-RPC rules are
// mcp/jsonrpc.ts's; the servers are mcp/server.ts's.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import rateLimit from '@fastify/rate-limit';
import type { PublicConfig } from '../../src/lib/site-config.ts';
import type { ServerConfig } from '../config.ts';
import { CACHE, ROUTES } from '../../src/lib/surface.ts';
import { paths } from '../../src/lib/urls.ts';
import { mcpHandlers, type McpDeps } from '../mcp/handlers.ts';
import { bodyTooLarge, boundedBody, CODES, errorResponse, mergeAnswers, parseMessages, splitInvalidParams } from '../mcp/jsonrpc.ts';
import { mcpEndpoints, type LegAnswer } from '../mcp/server.ts';

export const MCP_BODY_LIMIT = 1024 * 1024;

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

export async function mcpRoutes(
  app: FastifyInstance,
  deps: McpDeps & { limits: Pick<ServerConfig, 'mcpRateLimit' | 'mcpRateWindowSeconds' | 'mcpMaxBatch' | 'mcpMaxResponseBytes'> },
) {
  await app.register(async (scope) => {
    // Per client address; only /mcp is limited: it is the one route that does work per request.
    await scope.register(rateLimit, {
      max: deps.limits.mcpRateLimit,
      timeWindow: deps.limits.mcpRateWindowSeconds * 1000,
      // Thrown to the error handler below, which answers it as a JSON-RPC error (Retry-After is already set).
      errorResponseBuilder: (_request, context) => ({ statusCode: 429, message: `Too many requests: at most ${context.max} per ${context.after}; retry later` }),
    });

    // Parse the body ourselves: Fastify's JSON parser would answer malformed JSON in its own format, not JSON-RPC.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MCP_BODY_LIMIT }, (_request, body, done) => done(null, body));

    scope.setErrorHandler((error: { statusCode?: number; message: string }, request, reply) => {
      if (error.statusCode === 413) return sendJson(reply, 413, bodyTooLarge(MCP_BODY_LIMIT));
      if (error.statusCode === 429) return jsonRpcError(reply, 429, CODES.serverError, error.message);
      if (error.statusCode && error.statusCode < 500) return jsonRpcError(reply, error.statusCode, CODES.invalidRequest, error.message);
      request.log.error({ err: error }, 'mcp request failed');
      return jsonRpcError(reply, 500, CODES.internalError, 'Internal error');
    });

    scope.addHook('onRequest', async (request, reply) => {
      if (!allowedHost(request.headers.host, deps.config) || !allowedOrigin(request.headers.origin, deps.config)) {
        return jsonRpcError(reply, 403, CODES.serverError, 'Forbidden: this Host or Origin may not use the MCP endpoint');
      }
    });

    const notAllowed = (_request: FastifyRequest, reply: FastifyReply) =>
      jsonRpcError(reply.header('allow', 'POST'), 405, CODES.serverError, 'Method not allowed: this stateless MCP endpoint answers POST only (no SSE stream, no session to delete)');
    scope.route({ method: ['GET', 'DELETE', 'PUT', 'PATCH'], url: paths.mcp, handler: notAllowed });

    const { modern, legacy } = mcpEndpoints(mcpHandlers(deps));
    const charge = scope.createRateLimit();
    const { mcpMaxBatch, mcpMaxResponseBytes } = deps.limits;
    scope.post(paths.mcp, async (request, reply) => {
      if (!acceptsBoth(request)) {
        return jsonRpcError(reply, 406, CODES.serverError, 'Not Acceptable: the Accept header must list both application/json and text/event-stream');
      }
      if (!/^application\/json\s*(;|$)/i.test(String(request.headers['content-type'] ?? ''))) {
        return jsonRpcError(reply, 415, CODES.serverError, 'Unsupported Media Type: the body must be JSON (Content-Type: application/json)');
      }
      const parsed = parseMessages(request.body as string, mcpMaxBatch);
      if (!parsed.ok) return sendJson(reply, 400, parsed.error);
      const { isBatch, messages } = parsed;
      const send = (answer: LegAnswer) => {
        reply.headers(answer.headers);
        // Answers depend on the live database and are per request: never kept by a cache.
        reply.header('cache-control', CACHE[ROUTES.mcp.cache]);
        const body = boundedBody(answer.body, messages, isBatch, mcpMaxResponseBytes);
        return body === undefined ? reply.code(answer.status).send() : reply.code(answer.status).type('application/json').send(body);
      };

      // The 2026-07-28 revision (one message, the _meta envelope, no initialize) goes to the SDK's modern handler, as
      // its own classifier decides; 2025-era traffic (batches included) to the legacy leg below.
      // The classifier is the one behind the SDK's isLegacyRequest, given the three headers it reads instead of a
      // Web Request: one is made only for the requests that go through the SDK's HTTP faces.
      const incoming = { protocolVersion: headerOf(request, 'mcp-protocol-version'), webRequest: () => webRequestOf(request) };
      const [message] = messages;
      if (!isBatch) {
        const era = classifyInboundRequest({
          httpMethod: 'POST',
          protocolVersionHeader: incoming.protocolVersion,
          mcpMethodHeader: headerOf(request, 'mcp-method'),
          mcpNameHeader: headerOf(request, 'mcp-name'),
          body: message,
        } as Parameters<typeof classifyInboundRequest>[0]);
        if (era.kind !== 'legacy') {
          // A listen stream would stay open for good: this stateless, read-only server sends no notifications (and
          // advertises none: MCP_SERVER.capabilities).
          if ((message as { method?: string }).method === 'subscriptions/listen') {
            const id = (message as { id?: string | number }).id ?? null;
            return sendJson(reply, 200, errorResponse(id, CODES.methodNotFound, 'Method not found: this stateless, read-only server has no subscription streams; list again to see changes'));
          }
          return send(await modern(incoming.webRequest(), message));
        }
      }
      // The hook counted the POST once; a batch counts each of its messages (the same counter, one more per entry).
      for (let i = 1; i < messages.length; i++) {
        const limit = await charge(request);
        if (!limit.isAllowed && limit.isExceeded) {
          reply.header('retry-after', String(limit.ttlInSeconds));
          return jsonRpcError(reply, 429, CODES.serverError, `Too many requests: at most ${deps.limits.mcpRateLimit} messages per ${deps.limits.mcpRateWindowSeconds} s, each message of a batch counted; retry later`);
        }
      }
      const { valid, refused } = splitInvalidParams(messages);
      if (valid.length === 0) return send({ status: 200, headers: {}, body: mergeAnswers(undefined, refused, isBatch) });
      const answer = await legacy(incoming, isBatch ? valid : valid[0]);
      return send(refused.length === 0 ? answer : { ...answer, status: 200, body: mergeAnswers(answer.body, refused, isBatch) });
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
