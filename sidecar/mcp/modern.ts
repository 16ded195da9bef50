// The 2026-07-28 protocol revision (no initialize; server/discover; the per-request _meta envelope; Mcp-Method and
// Mcp-Name headers; resultType, ttlMs and cacheScope on results) through the SDK's v2 packages, over the same
// shared handlers as the 2025 path. The route sends here what the SDK's own classifier calls modern.
import { createMcpHandler, McpServer, ProtocolError, ResourceNotFoundError, type McpHttpHandler } from '@modelcontextprotocol/server';
import { MCP_TOOLS, type McpToolName } from '../../src/lib/mcp-tools.ts';
import { CACHE } from '../../src/lib/surface.ts';
import { StoreUnavailableError } from '../store/store.ts';
import { TOOL_DEFINITIONS, UnknownResource, type McpHandlers } from './handlers.ts';

/** ttlMs from the pages' own cache rules: discovery documents an hour, live pages none (they revalidate). */
const SECONDS = (rule: string) => Number(/max-age=(\d+)/.exec(rule)?.[1] ?? 0) * 1000;
const LISTS = { ttlMs: SECONDS(CACHE.discovery), cacheScope: 'public' as const };

export function modernMcpHandler(handlers: McpHandlers): McpHttpHandler {
  const factory = () => {
    const server = new McpServer(handlers.info, {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, completions: {} },
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
      server.registerTool(name, TOOL_DEFINITIONS[name] as never, ((args: Record<string, unknown>) => handlers.tools[name](args)) as never);
    }
    server.server.setRequestHandler('tools/list' as never, (() => ({ tools: handlers.toolList })) as never);
    server.server.setRequestHandler('resources/list' as never, (() => ({ resources: handlers.listResources() })) as never);
    server.server.setRequestHandler('resources/templates/list' as never, (() => ({ resourceTemplates: handlers.listTemplates() })) as never);
    server.server.setRequestHandler('resources/read' as never, (async (request: { params: { uri: string } }) => {
      try {
        const contents = await handlers.readResource(request.params.uri);
        // The documents (API docs, auth.md, OpenAPI) for an hour; a page of a template revalidates, as live pages do.
        const ttlMs = contents.uri.endsWith('.md') || contents.uri.endsWith('.json') ? SECONDS(CACHE.discovery) : 0;
        return { contents: [contents], ttlMs, cacheScope: 'public' };
      } catch (err) {
        if (err instanceof UnknownResource) throw new ResourceNotFoundError(request.params.uri, err.message);
        if (err instanceof StoreUnavailableError) throw new ProtocolError(-32603, 'The database is temporarily unavailable; try again in a minute.');
        throw err;
      }
    }) as never);
    server.server.setRequestHandler('completion/complete' as never, ((request: { params: { ref: { type: string; uri?: string }; argument: { name: string; value: string }; context?: { arguments?: Record<string, string> } } }) => ({
      completion: handlers.complete(request.params.ref, request.params.argument, request.params.context?.arguments),
    })) as never);
    return server;
  };
  // 2025-era requests never reach this handler: the route serves them on the 2025 path with SDK 1.32, whose
  // behaviour the 2025 tests and the 0.1 conformance suite pin down. So it is strict. The response mode is the
  // default ('auto'): a single JSON body, since no handler here sends anything before its result.
  return createMcpHandler(factory, { legacy: 'reject' });
}
