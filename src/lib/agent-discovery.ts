// What agents read to find this service's agent interfaces (issue 12): the MCP server card (SEP-2127 work) for the
// endpoint's /server-card and the spec's /.well-known/mcp/server-card.json, the MCP Catalog and AI Catalog that list
// it, and the Agent Skills index (discovery format 0.2.0) of the skills in content/agent-skills/. All generated from
// the one tool registry and the surface's paths, so they agree with each other and with the server.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { filesUnder } from './files.ts';
import { MCP_RESOURCES, MCP_SERVER, MCP_TOOLS } from './mcp-tools.ts';
import { t } from './i18n.ts';
import { describeLangNames, LANGS } from './locales.ts';
import type { PublicConfig } from './site-config.ts';
import { pathOf, SERVER_CARD_TYPE } from './surface.ts';
import { absoluteUrl } from './urls.ts';

/**
 * The tools as the MCP server lists them and the card describes them, in the registry's order: JSON Schema 2020-12,
 * `additionalProperties: false`. One function, so that tools/list and the card cannot disagree.
 */
export function toolDescriptions() {
  return Object.entries(MCP_TOOLS).map(([name, tool]) => ({
    name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(z.object(tool.inputSchema).strict()) as { type: 'object'; [key: string]: unknown },
    ...('outputSchema' in tool
      ? { outputSchema: z.toJSONSchema(z.object(tool.outputSchema)) as { type: 'object'; [key: string]: unknown } }
      : {}),
    annotations: tool.annotations,
  }));
}

/**
 * The server card. The draft's card (at the endpoint's /server-card) no longer lists tools: clients list them from
 * the server; the spec's /.well-known/mcp/server-card.json keeps them, for the scanners that read it there.
 */
export function serverCard(config: PublicConfig, { tools }: { tools: boolean }) {
  const endpoint = absoluteUrl(config.baseUrl, pathOf('mcp'));
  const title = `${config.serviceName} (read-only)`;
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json',
    name: MCP_SERVER.name,
    title,
    version: MCP_SERVER.version,
    description: `Read-only access to public link-in-bio profiles, digital business cards and a blog in ${describeLangNames()}, as Markdown. No authentication; nothing is written.`,
    websiteUrl: config.baseUrl,
    documentationUrl: absoluteUrl(config.baseUrl, pathOf('getApiDocs')),
    serverInfo: { name: MCP_SERVER.name, title, version: MCP_SERVER.version },
    protocolVersion: MCP_SERVER.protocolVersions[0],
    supportedProtocolVersions: MCP_SERVER.protocolVersions,
    transport: { type: 'streamable-http', endpoint },
    endpoint,
    remotes: [{ type: 'streamable-http', url: endpoint, supportedProtocolVersions: MCP_SERVER.protocolVersions }],
    // As the server declares them at initialize and server/discover.
    capabilities: MCP_SERVER.capabilities,
    authentication: { required: false, schemes: [] },
    ...(tools
      ? {
          tools: toolDescriptions(),
          resources: MCP_RESOURCES.map((r) => ({
            uri: absoluteUrl(config.baseUrl, r.path),
            name: r.name,
            title: r.title,
            description: r.description,
            mimeType: r.mimeType,
          })),
        }
      : {}),
  };
}

/** What the MCP server tells a client it is for (the initialize result's instructions). */
export function mcpInstructions(config: Pick<PublicConfig, 'serviceName'>): string {
  return (
    `Read-only access to ${config.serviceName}: public profiles (/p/{page}), digital business cards (/c/{cardId}) and a blog in ${describeLangNames()}. ` +
    'Everything is returned as Markdown. Nothing can be created or changed here.'
  );
}

/** The ARD version of the catalogs (Agentic Resource Discovery 1.0, agenticresourcediscovery.org). */
const ARD_SPEC_VERSION = '1.0';
/** ARD's media type of one agent skill's SKILL.md. */
const SKILL_TYPE = 'text/markdown; profile="urn:air:agent-skills"';

/** What people ask that an entry answers, in every language of the site (ARD recommends two to five). */
function queriesOf(key: keyof ReturnType<typeof t>['agentQueries']): string[] {
  return LANGS.flatMap((lang) => t(lang).agentQueries[key]).slice(0, 5);
}

/** Who publishes the catalogs: the site, by its domain. */
function host(config: PublicConfig) {
  return {
    displayName: config.serviceName,
    identifier: new URL(config.baseUrl).hostname,
    documentationUrl: absoluteUrl(config.baseUrl, pathOf('getApiDocs')),
  };
}

/** The MCP server's entry: its server card, by reference (ARD's value-or-reference). */
function mcpEntry(config: PublicConfig) {
  const domain = new URL(config.baseUrl).hostname;
  return {
    identifier: `urn:air:${domain}:mcp:${MCP_SERVER.name}`,
    displayName: `${config.serviceName} (read-only MCP server)`,
    type: SERVER_CARD_TYPE,
    url: absoluteUrl(config.baseUrl, pathOf('getMcpServerCardAtEndpoint')),
    description: `Public link-in-bio profiles, digital business cards and a blog in ${describeLangNames()}, as Markdown. Read-only; no authentication.`,
    version: MCP_SERVER.version,
    capabilities: Object.keys(MCP_TOOLS),
    tags: ['link-in-bio', 'business-card', 'blog', 'read-only'],
    representativeQueries: queriesOf('mcp'),
  };
}

/** /.well-known/mcp/catalog.json: the MCP Catalog (SEP-2127), in ARD 1.0's format. */
export function mcpCatalog(config: PublicConfig) {
  return { specVersion: ARD_SPEC_VERSION, host: host(config), entries: [mcpEntry(config)] };
}

/** /.well-known/ai-catalog.json (ARD 1.0): the MCP server, and each agent skill's SKILL.md. */
export function aiCatalog(config: PublicConfig, skills: { name: string; description: string }[]) {
  const domain = new URL(config.baseUrl).hostname;
  return {
    specVersion: ARD_SPEC_VERSION,
    host: host(config),
    entries: [
      mcpEntry(config),
      ...skills.map((skill) => ({
        identifier: `urn:air:${domain}:skill:${skill.name}`,
        displayName: skill.name,
        type: SKILL_TYPE,
        url: absoluteUrl(config.baseUrl, pathOf('getAgentSkillFile', { skill: skill.name })),
        description: skill.description,
        tags: ['agent-skill'],
        representativeQueries: queriesOf(skill.name as keyof ReturnType<typeof t>['agentQueries']),
      })),
    ],
  };
}

/** The skills in content/agent-skills/{name}/: each file's bytes, served as they are at /.well-known/agent-skills/{name}/{path}. */
export function agentSkills(
  root: string,
): { name: string; description: string; files: { path: string; body: Buffer }[] }[] {
  const byName = new Map<string, { path: string; body: Buffer }[]>();
  for (const file of filesUnder(root)) {
    const [name, ...rest] = file.split('/');
    if (!name || rest.length === 0) continue;
    byName.set(name, [...(byName.get(name) ?? []), { path: rest.join('/'), body: readFileSync(join(root, file)) }]);
  }
  return [...byName].map(([name, files]) => {
    const skill = files.find((f) => f.path === 'SKILL.md');
    if (!skill) throw new Error(`content/agent-skills/${name} has no SKILL.md`);
    const front = /^---\n([\s\S]*?)\n---/.exec(skill.body.toString('utf8'))?.[1] ?? '';
    const field = (key: string) => new RegExp(`^${key}:\\s*(.+)$`, 'm').exec(front)?.[1]?.trim();
    if (field('name') !== name) throw new Error(`content/agent-skills/${name}/SKILL.md: its name must be "${name}"`);
    const description = field('description');
    if (!description) throw new Error(`content/agent-skills/${name}/SKILL.md has no description`);
    return { name, description, files };
  });
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Agent Skills Discovery 0.2.0: per-file sha256 digests of the served bytes; a skill's over its sorted `{path}\0{hex}\n` lines. */
export function agentSkillsIndex(skills: ReturnType<typeof agentSkills>) {
  return {
    version: '0.2.0',
    skills: skills.map((skill) => {
      const files = skill.files
        .map((f) => ({ path: f.path, hex: sha256(f.body) }))
        .sort((a, b) => (a.path < b.path ? -1 : 1));
      return {
        name: skill.name,
        description: skill.description,
        digest: `sha256:${sha256(files.map((f) => `${f.path}\0${f.hex}\n`).join(''))}`,
        files: files.map((f) => ({ path: f.path, digest: `sha256:${f.hex}` })),
      };
    }),
  };
}
