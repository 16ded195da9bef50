// /.well-known/ai-catalog.json: the AI Catalog (Agentic Resource Discovery 1.0): the MCP server and the agent skills.
import { join } from 'node:path';
import type { APIRoute } from 'astro';
import { agentSkills, aiCatalog } from '../../lib/agent-discovery.ts';
import { config } from '../../lib/build-config.ts';

export const GET: APIRoute = () =>
  new Response(
    JSON.stringify(aiCatalog(config, agentSkills(join(process.cwd(), 'content/agent-skills'))), null, 2) + '\n',
  );
