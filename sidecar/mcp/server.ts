// The 2025 protocol revisions (2025-11-25, 2025-06-18, 2025-03-26): a stateless MCP server per request on SDK 1.x
// (its stateless pattern), over the shared handlers (handlers.ts). The 2026-07-28 revision is modern.ts.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CompleteRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_TOOLS, type McpToolName } from '../../src/lib/mcp-tools.ts';
import { StoreUnavailableError } from '../store/store.ts';
import { TOOL_DEFINITIONS, UnknownResource, type McpHandlers } from './handlers.ts';

export type { McpDeps } from './handlers.ts';

/** JSON-RPC code for an unknown resource (MCP specification 2025, resources). */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * Returns a function making a new McpServer per request. The JSON Schema validator is made once (the SDK otherwise
 * builds an Ajv instance per server, which was 15% of the CPU of a tools/call; see BENCHMARKS.md).
 */
export function mcpServerFactory(handlers: McpHandlers): () => McpServer {
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  return () => createMcpServer(handlers, jsonSchemaValidator);
}

function createMcpServer(handlers: McpHandlers, jsonSchemaValidator: AjvJsonSchemaValidator): McpServer {
  const server = new McpServer(handlers.info, {
    capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, completions: {} },
    jsonSchemaValidator,
    instructions: handlers.instructions,
  });
  for (const name of Object.keys(MCP_TOOLS) as McpToolName[]) {
    server.registerTool(name, TOOL_DEFINITIONS[name] as never, ((args: Record<string, unknown>) => handlers.tools[name](args) as Promise<CallToolResult>) as never);
  }
  // tools/list from the registry as the server card describes it, not the SDK's own conversion (draft-07, open
  // objects): one description of one registry.
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: handlers.toolList }));
  // Resources through the low-level handlers: the SDK's registerResource answers an unknown URI with -32602,
  // where the 2025 specification says -32002.
  server.server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: handlers.listResources() }));
  server.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: handlers.listTemplates() }));
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return { contents: [await handlers.readResource(request.params.uri)] };
    } catch (err) {
      if (err instanceof UnknownResource) throw new McpError(RESOURCE_NOT_FOUND, err.message, { uri: request.params.uri });
      if (err instanceof StoreUnavailableError) throw new McpError(-32603, 'The database is temporarily unavailable; try again in a minute.');
      throw err;
    }
  });
  server.server.setRequestHandler(CompleteRequestSchema, (request) => ({
    completion: handlers.complete(request.params.ref, request.params.argument, request.params.context?.arguments),
  }));
  return server;
}
