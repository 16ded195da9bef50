import type { APIRoute } from 'astro';
import { config } from '../lib/build-config.ts';
import { openApiDocument } from '../lib/openapi.ts';

export const GET: APIRoute = () => new Response(JSON.stringify(openApiDocument(config), null, 2) + '\n');
