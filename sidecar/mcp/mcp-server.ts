// The MCP server on the SDK's v2 packages, for every protocol revision this endpoint speaks: one factory
// (`mcpServerFactory`) over the shared handlers (handlers.ts) builds the server for both eras, so the 2026-07-28
// revision and the 2025 revisions (2025-11-25, 2025-06-18, 2025-03-26) can never drift apart. The eras are named as
// the SDK's classifier names them, everywhere in this project: `modern` is 2026-07-28 (and later), `legacy` the 2025
// revisions. The conductor
// (conductor.ts) sends each message to one of the two legs below, as the SDK's own classifier decides.
import {
  createMcpHandler,
  McpServer,
  ProtocolError,
  ResourceNotFoundError,
  WebStandardStreamableHTTPServerTransport,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpRequestContext,
  type Transport,
} from '@modelcontextprotocol/server';
import { MCP_SERVER, MCP_TOOLS, type McpToolName } from '../../src/lib/mcp-tools.ts';
import { CACHE } from '../../src/lib/surface.ts';
import { clientMessageOf, CODES } from './jsonrpc.ts';
import { AnswerTooLarge, TOOL_DEFINITIONS, UnknownResource, type McpHandlers } from './handlers.ts';

/** An answer as the 2025 revisions give it: the v2 SDK says invalidParams (the URI in `data`) for an unknown resource
 * on every revision, and rewrites a handler's legacyResourceNotFound to it; the 2025 revisions say legacyResourceNotFound. */
function asLegacy(message: JSONRPCMessage): JSONRPCMessage {
  const error = 'error' in message ? (message.error as { code: number; data?: { uri?: unknown } }) : undefined;
  return error?.code === CODES.invalidParams && typeof error.data?.uri === 'string'
    ? ({ ...message, error: { ...error, code: CODES.legacyResourceNotFound } } as JSONRPCMessage)
    : message;
}

/** The SDK's stateless transport, answering as the 2025 revisions do. */
class LegacyTransport extends WebStandardStreamableHTTPServerTransport {
  override send(message: JSONRPCMessage, options?: { relatedRequestId?: string | number }): Promise<void> {
    return super.send(asLegacy(message), options);
  }
}

/** ttlMs from the pages' own cache rules (a Cache-Control value's max-age, in milliseconds): discovery documents an
 * hour, live pages none (they revalidate). */
const ttlMsOf = (rule: string) => Number(/max-age=(\d+)/.exec(rule)?.[1] ?? 0) * 1000;
const LISTS = { ttlMs: ttlMsOf(CACHE.discovery), cacheScope: 'public' as const };

/**
 * The server for one request of either era. Only the envelope differs: the SDK adds what 2026-07-28 asks for
 * (resultType, _meta, the cache hints, which never reach a 2025 answer), and an unknown resource is -32002 in the
 * 2025 revisions, -32602 in 2026-07-28.
 */
export function mcpServerFactory(handlers: McpHandlers): (ctx: McpRequestContext) => McpServer {
  return ({ era }) => {
    const server = new McpServer(handlers.info, {
      // Exactly the revisions this server speaks (not the 2024 ones the SDK also knows): initialize counter-offers the
      // newest 2025 one, and the transport refuses any other header, listing these.
      supportedProtocolVersions: [...MCP_SERVER.protocolVersions],
      capabilities: MCP_SERVER.capabilities,
      instructions: handlers.instructions,
      // Public content: shared caches may keep what every client would get.
      cacheHints: {
        'tools/list': LISTS,
        'resources/list': LISTS,
        'resources/templates/list': LISTS,
        'server/discover': LISTS,
        'resources/read': { ttlMs: 0, cacheScope: 'public' },
      },
    });
    for (const name of Object.keys(MCP_TOOLS) as McpToolName[]) {
      server.registerTool(
        name,
        TOOL_DEFINITIONS[name] as never,
        ((args: Record<string, unknown>) => handlers.tools[name](args)) as never,
      );
    }
    const lowLevel = server.server;
    // tools/list from the registry as the server card describes it (JSON Schema 2020-12, closed objects), not the
    // SDK's own conversion: one description of one registry.
    lowLevel.setRequestHandler(
      'tools/list',
      (request) => (refuseCursor(request.params), { tools: handlers.toolList }) as never,
    );
    // Resources through the low-level handlers: the SDK's registerResource cannot answer -32002 for the 2025 era.
    lowLevel.setRequestHandler(
      'resources/list',
      (request) => (refuseCursor(request.params), { resources: handlers.listResources() }),
    );
    lowLevel.setRequestHandler(
      'resources/templates/list',
      (request) => (refuseCursor(request.params), { resourceTemplates: handlers.listTemplates() }),
    );
    lowLevel.setRequestHandler('resources/read', async (request) => {
      const uri = request.params.uri;
      try {
        const contents = await handlers.readResource(uri);
        if (era === 'legacy') return { contents: [contents] };
        // The documents (API docs, auth.md, OpenAPI) for an hour; a page of a template revalidates, as live pages do.
        const ttlMs = contents.uri.endsWith('.md') || contents.uri.endsWith('.json') ? ttlMsOf(CACHE.discovery) : 0;
        return { contents: [contents], ttlMs, cacheScope: 'public' };
      } catch (err) {
        if (err instanceof UnknownResource) {
          throw new ResourceNotFoundError(uri, err.message);
        }
        if (err instanceof AnswerTooLarge) throw new ProtocolError(CODES.serverError, err.message);
        const message = clientMessageOf(err);
        if (message) throw new ProtocolError(CODES.internalError, message);
        throw err;
      }
    });
    lowLevel.setRequestHandler('completion/complete', (request) => {
      const { ref, argument, context } = request.params as {
        ref: { type: string; uri?: string };
        argument: { name: string; value: string };
        context?: { arguments?: Record<string, string> };
      };
      return { completion: handlers.complete(ref, argument, context?.arguments) };
    });
    return server;
  };
}

/**
 * Every list fits in one page, so this server never gives a cursor: one sent is not one of ours, and the MCP
 * specification says an invalid cursor is -32602 (answering the first page again would loop a client forever).
 */
function refuseCursor(params: { cursor?: unknown } | undefined): void {
  if (params?.cursor !== undefined)
    throw new ProtocolError(
      CODES.invalidParams,
      'Invalid params: cursor: this server gives no cursors (every list fits in one page); list again without one',
    );
}

/** What the legacy leg reads of a request: the request itself, when the SDK's transport must see it (made only then). */
export interface Incoming {
  webRequest: () => Request;
}

/**
 * A leg's answer: the HTTP status and headers the SDK chose, and the JSON-RPC message(s): as the SDK serialised them
 * (text), or not yet serialised (the shared server's message); undefined when there is nothing to send, as for
 * notifications. The conductor bounds it, and serialises only what is not text yet.
 */
export interface LegAnswer {
  status: number;
  headers: Record<string, string>;
  body: JSONRPCMessage | string | undefined;
}

/** What the SDK's HTTP face answered, as a leg's answer: its body as the SDK wrote it, never parsed back. */
async function answerOf(response: Response): Promise<LegAnswer> {
  const text = await response.text();
  const headers = Object.fromEntries(response.headers);
  // The route sets the length of what it sends.
  delete headers['content-length'];
  return { status: response.status, headers, body: text === '' ? undefined : text };
}

/** The reading methods this server answers on every revision: tools, resources and completions. */
const READING_METHODS = [
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'completion/complete',
] as const;

/** The methods by revision, written once: the conductor judges params of the first, the shared server takes the second. */
export const METHODS = {
  /** On 2026-07-28 (initialize, ping, logging and subscriptions are gone from it). */
  modern: new Set<string>([...READING_METHODS, 'server/discover']),
  /** On the 2025 revisions, those whose answer depends on nothing an earlier request set: no initialize, no logging level. */
  legacyStateless: new Set<string>([...READING_METHODS, 'ping']),
} as const;

/**
 * One long-lived server for the 2025 revisions' stateless requests. A fresh server per request (the SDK's stateless
 * idiom) costs more than the rest of the request together; but a stateless server's answer to these methods depends
 * on nothing but the request: a server that never sees `initialize` is in the same state before every request, the
 * state a fresh one starts in. So these requests share one server over this in-process transport, which gives every
 * message an id of its own (clients all count from 1: the server must not see two requests with one id, or let one
 * client cancel another's) and hands each answer back with the client's id. Everything else (initialize,
 * notifications, batches, unknown methods, a protocol version header the SDK must refuse) goes to a fresh server.
 */
class SharedLegacyServer implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #next = 0;
  readonly #waiting = new Map<number, { id: string | number; answered: (message: JSONRPCMessage) => void }>();

  constructor(server: McpServer) {
    void server.connect(this);
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // Only answers come back: these handlers send no notifications and no requests of their own.
    const id = 'id' in message && typeof message.id === 'number' ? message.id : undefined;
    const waiting = id === undefined ? undefined : this.#waiting.get(id);
    if (!waiting) return;
    this.#waiting.delete(id!);
    waiting.answered(asLegacy({ ...message, id: waiting.id }));
  }

  /**
   * Whether this request is one the shared server answers exactly as a fresh one would. The conductor has refused a
   * protocol version this server does not speak before any message reaches a leg.
   */
  takes(message: unknown): message is JSONRPCRequest {
    const m = message as { id?: unknown; method?: unknown } | null;
    return (
      !!m &&
      typeof m === 'object' &&
      !Array.isArray(m) &&
      m.id !== undefined &&
      typeof m.method === 'string' &&
      METHODS.legacyStateless.has(m.method)
    );
  }

  answer(message: JSONRPCRequest): Promise<JSONRPCMessage> {
    const id = ++this.#next;
    const deliver = this.onmessage;
    if (!deliver) return Promise.reject(new Error('The shared MCP server is not connected'));
    return new Promise((answered, failed) => {
      this.#waiting.set(id, { id: message.id, answered });
      try {
        deliver({ ...message, id });
      } catch (err) {
        this.#waiting.delete(id);
        failed(err);
      }
    });
  }
}

/** The two legs of POST /mcp, one factory behind both. */
export function mcpLegs(handlers: McpHandlers) {
  const factory = mcpServerFactory(handlers);
  const shared = new SharedLegacyServer(factory({ era: 'legacy' }));
  const modernHandler = createMcpHandler(factory, { legacy: 'reject' });
  return {
    // 2026-07-28: the SDK's handler, strict (the route sends it only what the SDK's classifier calls modern). Its
    // response mode is the default ('auto'): a single JSON body, since no handler here sends anything before its
    // result.
    modern: (request: Request, parsedBody: unknown): Promise<LegAnswer> =>
      modernHandler.fetch(request, { parsedBody }).then(answerOf),
    /**
     * The 2025 revisions: the shared server for stateless requests, else a server from the same factory on the SDK's
     * stateless transport, answering JSON. The latter is the SDK's own stateless legacy leg (`legacy: 'stateless'`)
     * with one difference, `enableJsonResponse`: that leg answers every request with an SSE stream, which 2025
     * clients accept but is not what this endpoint has always answered (a JSON body, which caches, proxies and curl
     * users read as it is), and it measured slower: tools/call get_profile in process, 127-146 us against 102-117 us
     * (and 22 us on the shared server).
     */
    legacy: async (incoming: Incoming, parsedBody: unknown): Promise<LegAnswer> => {
      if (shared.takes(parsedBody)) return { status: 200, headers: {}, body: await shared.answer(parsedBody) };
      const request = incoming.webRequest();
      const server = factory({ era: 'legacy', requestInfo: request });
      // No sessionIdGenerator: stateless, no Mcp-Session-Id.
      const transport = new LegacyTransport({ enableJsonResponse: true });
      try {
        await server.connect(transport);
        return await answerOf(await transport.handleRequest(request, { parsedBody }));
      } finally {
        void transport.close();
        void server.close();
      }
    },
  };
}
