// The baseline: a bare Fastify app returning, from memory, the same bytes the sidecar serves.
// Usage: node baseline-server.ts PORT FILE.json, where FILE maps a route to { type, body (base64), headers? }.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const [port, file] = process.argv.slice(2);
const routes = JSON.parse(readFileSync(file ?? '', 'utf8')) as Record<
  string,
  { type: string; body: string; method?: 'GET' | 'POST'; headers?: Record<string, string> }
>;
const app = Fastify({ logger: false });
for (const [url, route] of Object.entries(routes)) {
  const body = Buffer.from(route.body, 'base64');
  const headers = route.headers;
  app.route({
    method: route.method ?? 'GET',
    url,
    handler: (_request, reply) => (headers ? reply.headers(headers) : reply.type(route.type)).send(body),
  });
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
console.log('ready');
