import type { APIRoute } from 'astro';
import { config } from '../../lib/build-config.ts';
import { apiCatalog } from '../../lib/discovery.ts';

export const GET: APIRoute = () => new Response(JSON.stringify(apiCatalog(config), null, 2) + '\n');
