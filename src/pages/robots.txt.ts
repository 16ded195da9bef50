import type { APIRoute } from 'astro';
import { config } from '../lib/build-config.ts';
import { robotsTxt } from '../lib/discovery.ts';

export const GET: APIRoute = () => new Response(robotsTxt(config));
