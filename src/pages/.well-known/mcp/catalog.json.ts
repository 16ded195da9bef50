// /.well-known/mcp/catalog.json: the MCP Catalog.
import type { APIRoute } from 'astro';
import { mcpCatalog } from '../../../lib/agent-discovery.ts';
import { config } from '../../../lib/build-config.ts';

export const GET: APIRoute = () => new Response(JSON.stringify(mcpCatalog(config), null, 2) + '\n');
