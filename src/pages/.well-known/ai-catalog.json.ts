// /.well-known/ai-catalog.json: the AI Catalog.
import type { APIRoute } from 'astro';
import { aiCatalog } from '../../lib/agent-discovery.ts';
import { config } from '../../lib/build-config.ts';

export const GET: APIRoute = () => new Response(JSON.stringify(aiCatalog(config), null, 2) + '\n');
