// Where the time of one MCP tools/call goes without HTTP (no sockets, no Fastify): the pieces of each leg, called
// in a loop in this process. `npm run bench -- --mcp` prints and records these beside the HTTP measurements.
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { loadConfig } from '../../sidecar/config.ts';
import { openServices } from '../../sidecar/app.ts';
import { mcpHandlers } from '../../sidecar/mcp/handlers.ts';
import { mcpLegs, mcpServerFactory } from '../../sidecar/mcp/mcp-server.ts';
import { projectRoot } from '../ensure-build.ts';

export interface McpCall {
  headers: Record<string, string>;
  body: string;
}

/** Microseconds per call of `fn`, after a warm-up, as a median of five rounds. */
async function perCall(fn: () => unknown, calls = 4000): Promise<number> {
  for (let i = 0; i < 1000; i++) await fn();
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const start = performance.now();
    for (let i = 0; i < calls; i++) await fn();
    rounds.push(((performance.now() - start) / calls) * 1000);
  }
  return rounds.sort((a, b) => a - b)[2]!;
}

export async function mcpInProcess(
  databasePath: string,
  legacy2025: McpCall,
  modern2026: McpCall,
): Promise<[string, number][]> {
  const config = loadConfig({ ...process.env, DATABASE_PATH: databasePath });
  const services = await openServices({ config, distDir: join(projectRoot, 'dist') });
  const handlers = mcpHandlers({ config, ...services });
  const legs = mcpLegs(handlers);
  const factory = mcpServerFactory(handlers);
  const webRequest = (headers: Record<string, string>) => () =>
    new Request(`${config.baseUrl}/mcp`, {
      method: 'POST',
      headers: { host: new URL(config.baseUrl).host, ...headers },
    });
  const legacyBody = JSON.parse(legacy2025.body) as { params: { arguments: Record<string, unknown> } };
  const modernBody = JSON.parse(modern2026.body) as unknown;
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  };
  const incoming = {
    protocolVersion: legacy2025.headers['mcp-protocol-version'],
    webRequest: webRequest(legacy2025.headers),
  };
  const rows: [string, number][] = [
    [
      'the tool handler alone (get_profile from the live-page cache)',
      await perCall(() => handlers.tools.get_profile(legacyBody.params.arguments)),
    ],
    [
      'a new McpServer with the five tools (what per-request serving builds each time)',
      await perCall(() => factory({ era: 'legacy' })),
    ],
    [
      '2025-11-25 leg: the shared server (this endpoint)',
      await perCall(async () => (await legs.legacy(incoming, legacyBody)).body),
    ],
    [
      "2025-11-25 leg: a fresh server on the SDK's stateless transport (initialize)",
      await perCall(async () => (await legs.legacy(incoming, initialize)).body),
    ],
    [
      "2026-07-28 leg: the SDK's createMcpHandler (a fresh server per request)",
      await perCall(async () => (await legs.modern(webRequest(modern2026.headers)(), modernBody)).body),
    ],
  ];
  await services.store.close();
  await services.pool.close();
  return rows;
}
