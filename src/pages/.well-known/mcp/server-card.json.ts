// /.well-known/mcp/server-card.json, generated from the tool registry: SEP-1649 keys scanners read, and SEP-2127 identity keys.
import type { APIRoute } from 'astro';
import { z } from 'zod';
import { config } from '../../../lib/build-config.ts';
import { MCP_RESOURCES, MCP_SERVER, MCP_TOOLS } from '../../../lib/mcp-tools.ts';
import { absoluteUrl, paths } from '../../../lib/urls.ts';

export const GET: APIRoute = () => {
  const endpoint = absoluteUrl(config.baseUrl, paths.mcp);
  const title = `${config.serviceName} (read-only)`;
  const description =
    'Read-only access to public link-in-bio profiles, digital business cards and a bilingual (Arabic and English) blog, as Markdown. No authentication; nothing is written.';
  const card = {
    $schema: 'https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json',
    name: MCP_SERVER.name,
    title,
    version: MCP_SERVER.version,
    description,
    websiteUrl: config.baseUrl,
    documentationUrl: absoluteUrl(config.baseUrl, paths.apiDocs),
    serverInfo: { name: MCP_SERVER.name, title, version: MCP_SERVER.version },
    protocolVersion: MCP_SERVER.protocolVersions[0],
    supportedProtocolVersions: MCP_SERVER.protocolVersions,
    transport: { type: 'streamable-http', endpoint },
    endpoint,
    remotes: [{ type: 'streamable-http', url: endpoint, supportedProtocolVersions: MCP_SERVER.protocolVersions }],
    // As the SDK declares them at initialize.
    capabilities: { tools: { listChanged: true }, resources: { listChanged: true } },
    authentication: { required: false, schemes: [] },
    tools: Object.entries(MCP_TOOLS).map(([name, tool]) => ({
      name,
      title: tool.title,
      description: tool.description,
      inputSchema: z.toJSONSchema(z.object(tool.inputSchema)),
      ...('outputSchema' in tool ? { outputSchema: z.toJSONSchema(z.object(tool.outputSchema)) } : {}),
      annotations: tool.annotations,
    })),
    resources: MCP_RESOURCES.map((r) => ({ uri: absoluteUrl(config.baseUrl, r.path), name: r.name, title: r.title, description: r.description, mimeType: r.mimeType })),
  };
  return new Response(JSON.stringify(card, null, 2) + '\n');
};
