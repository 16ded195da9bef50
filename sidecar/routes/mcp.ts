// POST /mcp: Streamable HTTP, stateless, JSON responses. This module answers what must be answered before the SDK
// sees a request (foreign hosts, Accept, content type, size, malformed JSON) with JSON-RPC errors; the SDK does the rest.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ClientRequestSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import rateLimit from '@fastify/rate-limit';
import type { PublicConfig } from '../../src/lib/site-config.ts';
import type { ServerConfig } from '../config.ts';
import { CACHE, ROUTES } from '../../src/lib/surface.ts';
import { paths } from '../../src/lib/urls.ts';
import { mcpHandlers, type McpDeps } from '../mcp/handlers.ts';
import { mcpEndpoints } from '../mcp/server.ts';

export const MCP_BODY_LIMIT = 1024 * 1024;

function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string) {
  return reply.code(status).header('cache-control', CACHE[ROUTES.mcp.cache]).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** Hosts a browser may legitimately send: BASE_URL's, and loopback names for local use. DNS rebinding sends others. */
function allowedHost(host: string | undefined, config: PublicConfig): boolean {
  if (!host) return false;
  const base = new URL(config.baseUrl);
  if (host.toLowerCase() === base.host) return true;
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return name === 'localhost' || name === '127.0.0.1' || name === '[::1]';
}

function allowedOrigin(origin: string | undefined, config: PublicConfig): boolean {
  if (!origin) return true; // not a browser, or a same-origin navigation: nothing to rebind
  try {
    const u = new URL(origin);
    return u.origin === config.baseUrl || ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
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
      if (error.statusCode === 413) return jsonRpcError(reply, 413, -32600, `Request body is larger than ${MCP_BODY_LIMIT} bytes`);
      if (error.statusCode === 429) return jsonRpcError(reply, 429, -32000, error.message);
      if (error.statusCode && error.statusCode < 500) return jsonRpcError(reply, error.statusCode, -32600, error.message);
      request.log.error({ err: error }, 'mcp request failed');
      return jsonRpcError(reply, 500, -32603, 'Internal error');
    });

    scope.addHook('onRequest', async (request, reply) => {
      if (!allowedHost(request.headers.host, deps.config) || !allowedOrigin(request.headers.origin, deps.config)) {
        return jsonRpcError(reply, 403, -32000, 'Forbidden: this Host or Origin may not use the MCP endpoint');
      }
    });

    const notAllowed = (_request: FastifyRequest, reply: FastifyReply) =>
      reply.header('allow', 'POST').code(405).type('application/json').send({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: this stateless MCP endpoint answers POST only (no SSE stream, no session to delete)' },
        id: null,
      });
    scope.route({ method: ['GET', 'DELETE', 'PUT', 'PATCH'], url: paths.mcp, handler: notAllowed });

    const { modern, legacy } = mcpEndpoints(mcpHandlers(deps));
    // The hook above counts a POST once; a batch counts each of its messages (the same counter, one more per entry).
    const charge = scope.createRateLimit();
    const { mcpMaxBatch, mcpMaxResponseBytes } = deps.limits;
    scope.post(paths.mcp, async (request, reply) => {
      if (!acceptsBoth(request)) {
        return jsonRpcError(reply, 406, -32000, 'Not Acceptable: the Accept header must list both application/json and text/event-stream');
      }
      if (!/^application\/json\s*(;|$)/i.test(String(request.headers['content-type'] ?? ''))) {
        return jsonRpcError(reply, 415, -32000, 'Unsupported Media Type: the body must be JSON (Content-Type: application/json)');
      }
      let message: unknown;
      try {
        message = JSON.parse(request.body as string);
      } catch {
        return jsonRpcError(reply, 400, -32700, 'Parse error: the body is not valid JSON');
      }
      const isBatch = Array.isArray(message);
      const batch: unknown[] = isBatch ? (message as unknown[]) : [message];
      if (batch.length === 0 || !batch.every((m) => JSONRPCMessageSchema.safeParse(m).success)) {
        return jsonRpcError(reply, 400, -32600, 'Invalid Request: the body is not a JSON-RPC 2.0 message');
      }
      // The 2026-07-28 revision (one message, the _meta envelope, no initialize) goes to the SDK's modern handler, as
      // its own classifier decides; 2025-era traffic (batches included) to the legacy leg below.
      // The classifier is the one behind the SDK's isLegacyRequest, given the three headers it reads instead of a
      // Web Request: one is made only for the requests that go through the SDK's HTTP faces.
      const incoming = { protocolVersion: headerOf(request, 'mcp-protocol-version'), webRequest: () => webRequestOf(request) };
      if (!isBatch) {
        const era = classifyInboundRequest({
          httpMethod: 'POST',
          protocolVersionHeader: incoming.protocolVersion,
          mcpMethodHeader: headerOf(request, 'mcp-method'),
          mcpNameHeader: headerOf(request, 'mcp-name'),
          body: message,
        } as Parameters<typeof classifyInboundRequest>[0]);
        if (era.kind !== 'legacy') {
          // A listen stream would stay open for good: this stateless, read-only server sends no notifications.
          if ((message as { method?: string }).method === 'subscriptions/listen') {
            const id = (message as { id?: string | number }).id ?? null;
            return reply.code(200).header('cache-control', CACHE[ROUTES.mcp.cache]).type('application/json').send({
              jsonrpc: '2.0',
              id,
              error: { code: -32601, message: 'Method not found: this stateless, read-only server has no subscription streams; list again to see changes' },
            });
          }
          const response = await modern.fetch(incoming.webRequest(), { parsedBody: message });
          const body = await response.text();
          response.headers.forEach((value, name) => void reply.header(name, value));
          reply.header('cache-control', CACHE[ROUTES.mcp.cache]);
          if (Buffer.byteLength(body) > mcpMaxResponseBytes) {
            const id = (message as { id?: string | number }).id ?? null;
            return reply.code(200).type('application/json').send({ jsonrpc: '2.0', id, error: { code: -32000, message: `Response too large: over ${mcpMaxResponseBytes} bytes; ask for less in one request` } });
          }
          return reply.code(response.status).send(body);
        }
      }
      if (batch.length > mcpMaxBatch) {
        return jsonRpcError(reply, 400, -32600, `Invalid Request: a batch may hold at most ${mcpMaxBatch} messages (this one holds ${batch.length}); send the rest in further requests`);
      }
      for (let i = 1; i < batch.length; i++) {
        const limit = await charge(request);
        if (!limit.isAllowed && limit.isExceeded) {
          reply.header('retry-after', String(limit.ttlInSeconds));
          return jsonRpcError(reply, 429, -32000, `Too many requests: at most ${deps.limits.mcpRateLimit} messages per ${deps.limits.mcpRateWindowSeconds} s, each message of a batch counted; retry later`);
        }
      }

      // Requests whose params do not fit their method are answered here with -32602 (the SDK would say -32603
      // Internal error with a validation dump); the rest go to the SDK.
      const refused: JsonRpcErrorResponse[] = [];
      const forSdk = batch.filter((entry) => {
        const error = invalidParams(entry);
        if (error) refused.push(error);
        return !error;
      });
      let status = 200;
      let answers: unknown[] = refused;
      let sdkHeaders: Record<string, string> = {};
      if (forSdk.length > 0) {
        const answer = await legacy(incoming, isBatch ? forSdk : forSdk[0]);
        sdkHeaders = answer.headers;
        if (refused.length === 0) {
          status = answer.status;
          answers = answer.body === '' ? [] : [answer.body];
        } else if (answer.body !== '') {
          answers = [...(JSON.parse(answer.body) as unknown[]), ...refused];
        }
      }
      const body = refused.length === 0 ? (answers[0] as string | undefined) ?? '' : JSON.stringify(isBatch ? answers : answers[0]);
      reply.headers(sdkHeaders);
      // Answers depend on the live database and are per request: never kept by a cache.
      reply.header('cache-control', CACHE[ROUTES.mcp.cache]);
      if (Buffer.byteLength(body) > mcpMaxResponseBytes) {
        // Bounded: a batch of large results must not become a response of tens of megabytes.
        const tooLarge = requestIds(batch).map((id) => ({
          jsonrpc: '2.0' as const,
          id,
          error: { code: -32000, message: `Response too large: over ${mcpMaxResponseBytes} bytes; ask for fewer things in one request` },
        }));
        return reply.code(200).type('application/json').send(JSON.stringify(isBatch ? tooLarge : tooLarge[0]));
      }
      if (refused.length > 0) return reply.code(200).type('application/json').send(body);
      return reply.code(status).send(body);
    });
  });
}

interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: string | number;
  error: { code: number; message: string };
}

/** Each client request method with the schema of its params, from the SDK's own definitions. */
const REQUEST_SCHEMAS = new Map<string, { safeParse: (value: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }>(
  (ClientRequestSchema.options as unknown as { shape: { method: { value: string } }; safeParse: (value: unknown) => never }[]).map((schema) => [schema.shape.method.value, schema]),
);

/** A -32602 answer for a request whose params do not fit its method, else undefined (unknown methods: the SDK's -32601). */
function invalidParams(entry: unknown): JsonRpcErrorResponse | undefined {
  const message = entry as { id?: string | number; method?: string };
  if (message.id === undefined || typeof message.method !== 'string') return undefined;
  const result = REQUEST_SCHEMAS.get(message.method)?.safeParse(entry);
  if (!result || result.success) return undefined;
  const issue = result.error?.issues[0];
  const where = issue ? issue.path.map(String).join('.') : 'params';
  return { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: `Invalid params: ${where}: ${issue?.message ?? 'does not fit the method'}` } };
}

function requestIds(batch: unknown[]): (string | number)[] {
  return batch.flatMap((m) => {
    const id = (m as { id?: string | number; method?: string }).id;
    return id !== undefined && (m as { method?: string }).method !== undefined ? [id] : [];
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
