// The documents agents read now (issue 12, item 4): the server card where the discovery draft puts it, the MCP and
// AI catalogs listing it, the Agent Skills index with digests of the bytes served, and robots.txt groups for AI
// crawlers. Asked of a real server, checked against each other and against what the MCP server says.
import { createHash } from 'node:crypto';
import robotsParser from 'robots-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Lighthouse's port of the ARD conformance suite's validate_manifest (what its ard-schema audit runs).
import { ConformanceTester } from 'lighthouse/third-party/ard/ard.js';
import { AI_CRAWLERS } from '../../src/lib/discovery.ts';
import { MCP_SERVER, MCP_TOOLS } from '../../src/lib/mcp-tools.ts';
import { pathOf, OWNER_APP_SEGMENTS } from '../../src/lib/surface.ts';
import { testConfig } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const base = testConfig.baseUrl;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const get = (path: string) => fetch(server.url + path);
const json = async (path: string) => (await get(path)).json();
const sha256 = (bytes: ArrayBuffer | string) =>
  createHash('sha256')
    .update(typeof bytes === 'string' ? bytes : Buffer.from(bytes))
    .digest('hex');

describe('the MCP server card and catalogs', () => {
  it('/mcp/server-card is the card, as application/mcp-server-card+json, readable from any origin, cached an hour', async () => {
    const res = await get('/mcp/server-card');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/mcp-server-card+json');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    const card = await res.json();
    expect(card.name).toBe(MCP_SERVER.name);
    expect(card.remotes).toEqual([
      { type: 'streamable-http', url: `${base}/mcp`, supportedProtocolVersions: [...MCP_SERVER.protocolVersions] },
    ]);
    // The draft's card no longer lists tools; the spec's well-known card still does, for scanners.
    expect(card.tools).toBeUndefined();
    const wellKnown = await json('/.well-known/mcp/server-card.json');
    expect(wellKnown.tools.map((t: { name: string }) => t.name)).toEqual(Object.keys(MCP_TOOLS));
    expect(wellKnown.supportedProtocolVersions).toEqual(card.supportedProtocolVersions);
    for (const tool of wellKnown.tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
  });

  it('agrees with what the MCP server says at initialize (2025) and at server/discover (2026-07-28)', async () => {
    const card = await json('/mcp/server-card');
    expect(card.protocolVersion).toBe('2026-07-28');
    const newest2025 = (card.supportedProtocolVersions as string[]).find((v) => v.startsWith('2025'));
    const res = await fetch(server.url + '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: newest2025, capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const { result } = await res.json();
    expect(result.protocolVersion).toBe(newest2025);
    const discover = await fetch(server.url + '/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'server/discover',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
          },
        },
      }),
    });
    // server/discover speaks for its own era (the 2025 ones are negotiated by initialize); the card names them all.
    const { result: discovered } = await discover.json();
    expect(discovered.supportedVersions).toContain(card.protocolVersion);
    for (const version of discovered.supportedVersions) expect(card.supportedProtocolVersions).toContain(version);
    expect(result.serverInfo.name).toBe(card.serverInfo.name);
    expect(result.serverInfo.version).toBe(card.serverInfo.version);
    expect(Object.keys(result.capabilities).sort()).toEqual(Object.keys(card.capabilities).sort());
  });

  // Issue 28: both said specVersion "draft", the skills entry a type no discovery client knows, no entry what it answers.
  it("the MCP Catalog and the AI Catalog are ARD 1.0 by Lighthouse's own validator, listing the card and each skill", async () => {
    for (const path of ['/.well-known/mcp/catalog.json', '/.well-known/ai-catalog.json']) {
      const tester = new ConformanceTester();
      tester.validate_manifest(await (await get(path)).text(), path);
      expect(tester.errors, path).toEqual([]);
      expect(tester.warnings, path).toEqual([]);
    }
    const entry = {
      identifier: `urn:air:localhost:mcp:${MCP_SERVER.name}`,
      type: 'application/mcp-server-card+json',
      url: `${base}/mcp/server-card`,
    };
    const mcp = await json('/.well-known/mcp/catalog.json');
    expect(mcp).toMatchObject({ specVersion: '1.0', host: { displayName: 'Bio Cards', identifier: 'localhost' } });
    expect(mcp.entries).toHaveLength(1);
    expect(mcp.entries[0]).toMatchObject(entry);
    const ai = await json('/.well-known/ai-catalog.json');
    expect(ai.entries[0]).toMatchObject(entry);
    const skills = ai.entries.slice(1) as { type: string; url: string; representativeQueries: string[] }[];
    expect(skills.map((e) => e.url).sort()).toEqual(
      ['read-profiles-and-cards', 'read-the-blog', 'use-the-mcp-server'].map(
        (name) => `${base}/.well-known/agent-skills/${name}/SKILL.md`,
      ),
    );
    for (const e of [...mcp.entries, ...ai.entries] as {
      displayName: string;
      type: string;
      url: string;
      representativeQueries: string[];
    }[]) {
      expect(e.displayName.length).toBeGreaterThan(5);
      // What people ask, in every language of the site.
      expect(
        e.representativeQueries.some((q) => /[\u0600-\u06FF]/.test(q)),
        e.url,
      ).toBe(true);
      expect(
        e.representativeQueries.some((q) => /^[\x20-\x7E]+$/.test(q)),
        e.url,
      ).toBe(true);
      // Nothing is listed that is not served as what it says it is.
      const res = await get(new URL(e.url).pathname);
      expect(res.status, e.url).toBe(200);
      expect(res.headers.get('content-type') ?? '', e.url).toContain(
        e.type.startsWith('text/markdown') ? 'text/markdown' : 'application/mcp-server-card+json',
      );
    }
  });

  it('the API catalog and llms.txt link them', async () => {
    const catalog = JSON.stringify(await json('/.well-known/api-catalog'));
    expect(catalog).toContain(`${base}/mcp/server-card`);
    const llms = await (await get('/llms.txt')).text();
    for (const path of ['/mcp/server-card', '/.well-known/mcp/catalog.json', '/.well-known/agent-skills/index.json'])
      expect(llms).toContain(base + path);
  });
});

describe('Agent Skills', () => {
  it('the index (discovery 0.2.0) gives every file a sha256 digest of the bytes served, and each skill the digest of its files', async () => {
    const index = await json('/.well-known/agent-skills/index.json');
    expect(index.version).toBe('0.2.0');
    expect(index.skills.map((s: { name: string }) => s.name).sort()).toEqual([
      'read-profiles-and-cards',
      'read-the-blog',
      'use-the-mcp-server',
    ]);
    for (const skill of index.skills as {
      name: string;
      description: string;
      digest: string;
      files: { path: string; digest: string }[];
    }[]) {
      expect(skill.description.length, skill.name).toBeGreaterThan(40);
      const lines: string[] = [];
      for (const file of skill.files) {
        const res = await get(`/.well-known/agent-skills/${skill.name}/${file.path}`);
        expect(res.status, file.path).toBe(200);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        const hex = sha256(await res.arrayBuffer());
        expect(file.digest).toBe(`sha256:${hex}`);
        lines.push(`${file.path}\0${hex}\n`);
      }
      expect(skill.digest).toBe(`sha256:${sha256(lines.sort().join(''))}`);
      const body = await (await get(pathOf('getAgentSkillFile', { skill: skill.name }))).text();
      expect(body).toMatch(new RegExp(`^---\\nname: ${skill.name}\\ndescription: `));
    }
  });
});

describe('robots.txt for AI crawlers', () => {
  it('names the AI crawlers in a group of their own: every public page allowed, the owner app disallowed, with a Content-Signal', async () => {
    const text = await (await get('/robots.txt')).text();
    const robots = robotsParser(`${base}/robots.txt`, text);
    for (const agent of [...AI_CRAWLERS, 'SomeOtherBot']) {
      expect(text).toContain(agent === 'SomeOtherBot' ? 'User-agent: *' : `User-agent: ${agent}`);
      for (const path of [
        '/',
        '/p/layla',
        '/c/k7f2q9',
        '/ar/blog',
        '/auth.md',
        '/llms.txt',
        '/mcp/server-card',
        '/.well-known/agent-skills/index.json',
      ]) {
        expect(robots.isAllowed(`${base}${path}`, agent), `${agent} ${path}`).toBe(true);
      }
      for (const segment of [...OWNER_APP_SEGMENTS, 'mcp'])
        expect(robots.isAllowed(`${base}/${segment}`, agent), `${agent} /${segment}`).toBe(false);
    }
    expect(text.match(/^Content-Signal: search=yes, ai-input=yes, ai-train=no$/gm)).toHaveLength(2);
  });
});
