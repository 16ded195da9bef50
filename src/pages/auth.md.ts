import type { APIRoute } from 'astro';
import { config } from '../lib/build-config.ts';
import { authPolicy } from '../lib/auth-policy.ts';

export const GET: APIRoute = () => new Response(authPolicy(config));
