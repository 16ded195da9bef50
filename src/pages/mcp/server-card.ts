// /mcp/server-card: the MCP server card where the discovery draft puts it (the endpoint's /server-card).
import type { APIRoute } from 'astro';
import { serverCard } from '../../lib/agent-discovery.ts';
import { config } from '../../lib/build-config.ts';

export const GET: APIRoute = () => new Response(JSON.stringify(serverCard(config, { tools: false }), null, 2) + '\n');
