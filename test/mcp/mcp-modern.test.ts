// MCP 2026-07-28 (issue 12, item 1) beside the 2025 revisions on the same URL: a client of the SDK's v2 packages
// pinned to the new revision, one in auto mode, and raw requests for what the revision says of errors.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOLS } from '../../src/lib/mcp-tools.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const base = 'http://localhost:8080';
const MODERN = '2026-07-28';
let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startTestServer();
  client = new Client(
    { name: 'modern-test-client', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url + '/mcp')));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const httpMarkdown = async (path: string) =>
  (await fetch(server.url + path, { headers: { accept: 'text/markdown' } })).text();
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? '';

describe('a client pinned to 2026-07-28', () => {
  it('connects without initialize and lists the tools in the registry order', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(Object.keys(MCP_TOOLS));
    for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
  });

  it('calls the tools and reads the pages as the same Markdown as the 2025 path and HTTP', async () => {
    expect(textOf(await client.callTool({ name: 'get_profile', arguments: { page: 'layla' } }))).toBe(
      await httpMarkdown('/p/layla'),
    );
    expect(textOf(await client.callTool({ name: 'read_page', arguments: { path: '/en/blog' } }))).toBe(
      await httpMarkdown('/en/blog'),
    );
    const missing = await client.callTool({ name: 'get_profile', arguments: { page: 'nobody' } });
    expect(missing.isError).toBe(true);
    const { contents } = await client.readResource({ uri: `${base}/c/k7f2q9` });
    expect((contents[0] as { text: string }).text).toBe(await httpMarkdown('/c/k7f2q9'));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      `${base}/p/{page}`,
      `${base}/c/{cardId}`,
      `${base}/{lang}/blog/{slug}`,
    ]);
  });

  it('an unknown resource is -32602 on this revision', async () => {
    await expect(client.readResource({ uri: `${base}/p/nobody` })).rejects.toMatchObject({ code: -32602 });
  });

  // Held up in issue 21's probe, kept so: hostile template URIs and completions get clean answers.
  it.each([
    `${base}/p/%2e%2e%2fpackage.json`,
    `${base}/p/..%2F..%2Fetc%2Fpasswd`,
    `${base}/login`,
    `${base}/en/blog/%2e%2e`,
    `${base}/c/%00`,
    'file:///etc/passwd',
    `${base}/mcp`,
  ])('reading %s is a clean -32602, never a file', async (uri) => {
    await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32602 });
  });

  it('a 5,000-character completion prefix gets an empty answer', async () => {
    const result = await client.complete({
      ref: { type: 'ref/resource', uri: `${base}/{lang}/blog/{slug}` },
      argument: { name: 'slug', value: 'q'.repeat(5000) },
      context: { arguments: { lang: 'en' } },
    });
    expect(result.completion.values).toEqual([]);
  });
});

describe('raw requests on 2026-07-28', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(server.url + '/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  };

  it('server/discover names the supported versions, and the results carry resultType and cache fields', async () => {
    const discover = await (
      await post(
        { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } },
        { 'mcp-method': 'server/discover' },
      )
    ).json();
    expect(discover.id).toBe(1);
    expect(JSON.stringify(discover.result)).toContain(MODERN);
    const list = await (
      await post(
        { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } },
        { 'mcp-method': 'tools/list' },
      )
    ).json();
    expect(list.result.resultType).toBeDefined();
    expect(list.result.cacheScope).toBe('public');
    expect(list.result.ttlMs).toBe(3_600_000);
  });

  it('headers that disagree with the body are HeaderMismatch (-32020)', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta } },
      { 'mcp-method': 'resources/list' },
    );
    const body = await res.json();
    expect(body.id).toBe(3);
    expect(body.error.code).toBe(-32020);
  });

  it('an unsupported version is refused, naming the supported ones, with the request id', async () => {
    const res = await post(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/list',
        params: { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
      { 'mcp-method': 'tools/list', 'mcp-protocol-version': '2099-01-01' },
    );
    const body = await res.json();
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32022);
    expect(JSON.stringify(body.error)).toContain(MODERN);
  });
});

describe('2026-07-28 refusals, each on its own (issue 27)', () => {
  const post = (body: unknown, headers: Record<string, string>) =>
    fetch(server.url + '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
  const envelope = (version: string) => ({
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
  });

  it('subscriptions/listen under an unknown version is the unsupported-version error, listing the supported versions', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { _meta: envelope('2099-01-01') } },
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'subscriptions/listen' },
    );
    const body = await res.json();
    expect(body.id).toBe(1);
    expect(body.error.code).toBe(-32022);
    expect(JSON.stringify(body.error)).toContain(MODERN);
  });

  it('subscriptions/listen under a supported version is method-not-found: this server holds no streams', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 2, method: 'subscriptions/listen', params: { _meta: envelope(MODERN) } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
    );
    // 404, as this revision answers every method a server does not serve.
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe(-32601);
  });

  it.each([
    ['tools/call', { name: 'get_profile', arguments: 'layla' }, 'arguments'],
    ['resources/read', { uri: 42 }, 'uri'],
    ['tools/call', { arguments: {} }, 'name'],
  ])(
    '%s with params that do not fit (%j) is -32602 naming the field in one line, not a validator dump',
    async (method, params, field) => {
      const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
      const res = await post(
        { jsonrpc: '2.0', id: 5, method, params: { ...params, _meta: envelope(MODERN) } },
        headers,
      );
      const body = await res.json();
      expect(body.id).toBe(5);
      expect(body.error.code).toBe(-32602);
      expect(body.error.message).toContain(field);
      expect(body.error.message).not.toMatch(/[\n[{]/);
    },
  );

  it('a version header that disagrees with the body envelope is HeaderMismatch (-32020)', async () => {
    const res = await post(
      { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: envelope(MODERN) } },
      { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' },
    );
    const body = await res.json();
    expect(body.id).toBe(6);
    expect(body.error.code).toBe(-32020);
  });
});

describe('a client in auto mode, and the 2025 path beside it', () => {
  it('auto mode reaches 2026-07-28; a 2025-03-26 initialize still works on the same URL', async () => {
    const auto = new Client({ name: 'auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await auto.connect(new StreamableHTTPClientTransport(new URL(server.url + '/mcp')));
    expect((await auto.listTools()).tools).toHaveLength(Object.keys(MCP_TOOLS).length);
    await auto.close();
    const res = await fetch(server.url + '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    });
    expect((await res.json()).result.protocolVersion).toBe('2025-03-26');
  });
});
