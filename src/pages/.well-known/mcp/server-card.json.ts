// /.well-known/mcp/server-card.json: the card where the spec and the scanners look for it, with the tools listed.
import type { APIRoute } from 'astro';
import { serverCard } from '../../../lib/agent-discovery.ts';
import { config } from '../../../lib/build-config.ts';

export const GET: APIRoute = () => new Response(JSON.stringify(serverCard(config, { tools: true }), null, 2) + '\n');
