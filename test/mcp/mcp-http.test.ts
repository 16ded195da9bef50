// Error statuses of POST /mcp, as any HTTP client sees them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathOf, MCP_BODY_LIMIT } from '../../src/lib/surface.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const BOTH = 'application/json, text/event-stream';
const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(server.url + '/mcp', {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', accept: BOTH, ...headers },
  });
const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});

async function expectJsonRpcError(res: Response, status: number, code?: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await res.json();
  expect(body.jsonrpc).toBe('2.0');
  expect(typeof body.error.message).toBe('string');
  if (code !== undefined) expect(body.error.code).toBe(code);
  return body;
}

describe('POST /mcp errors', () => {
  it('initialize works statelessly: no session id', async () => {
    const res = await post(initialize);
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect((await res.json()).result.protocolVersion).toBe('2025-11-25');
  });

  it("malformed JSON → 400, -32700, id null (not Fastify's own error format)", async () => {
    const body = await expectJsonRpcError(await post('{"jsonrpc": "2.0", "id": 1, "method": '), 400, -32700);
    expect(body.id).toBeNull();
  });

  it('valid JSON that is not JSON-RPC → 400, -32600', async () => {
    for (const body of ['{"hello": "world"}', '[]', '42', '{"jsonrpc": "1.0", "id": 1, "method": "ping"}']) {
      await expectJsonRpcError(await post(body), 400, -32600);
    }
  });

  it('an unknown method → -32601', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'resources/destroy' }), {
      'mcp-protocol-version': '2025-11-25',
    });
    const body = await res.json();
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32601);
  });

  it('Accept without both application/json and text/event-stream → 406', async () => {
    for (const accept of ['application/json', 'text/event-stream', '*/*']) {
      await expectJsonRpcError(await post(initialize, { accept }), 406);
    }
  });

  it('a non-JSON content type → 415', async () => {
    await expectJsonRpcError(await post(initialize, { 'content-type': 'text/plain' }), 415);
    await expectJsonRpcError(await post('a=b', { 'content-type': 'application/x-www-form-urlencoded' }), 415);
  });

  it(`a body over ${MCP_BODY_LIMIT / 1024} KiB → 413, as JSON-RPC, saying the limit; one just under it is read`, async () => {
    const padded = (bytes: number) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(bytes) } });
    const body = await expectJsonRpcError(await post(padded(MCP_BODY_LIMIT + 10)), 413);
    expect(body.error.message).toContain(String(MCP_BODY_LIMIT));
    expect((await post(padded(MCP_BODY_LIMIT - 200))).status).toBe(200);
  });

  it('an unsupported MCP-Protocol-Version → 400', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
      'mcp-protocol-version': '1999-01-01',
    });
    await expectJsonRpcError(res, 400);
  });

  it('GET and DELETE → 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(server.url + '/mcp', { method, headers: { accept: BOTH } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it("a foreign Origin or Host (DNS rebinding) → 403; BASE_URL's host and localhost are accepted", async () => {
    await expectJsonRpcError(await post(initialize, { origin: 'https://evil.example' }), 403);
    // fetch will not set Host; a raw request can.
    const { request } = await import('node:http');
    const url = new URL(server.url);
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: '/mcp',
            method: 'POST',
            headers: { host, 'content-type': 'application/json', accept: BOTH },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(initialize);
      });
    expect(await status('evil.example')).toBe(403);
    expect(await status('attacker.test:8080')).toBe(403);
    expect(await status('localhost:8080')).toBe(200);
    expect(await status('127.0.0.1')).toBe(200);
    expect((await post(initialize, { origin: 'http://localhost:8080' })).status).toBe(200);
  });

  // A Host whose port no URL can hold passed the host check and then broke the request's own URL: 500 (issue 36).
  it('a Host with a port out of range, or two Host headers, is refused, never a 500', async () => {
    const { request } = await import('node:http');
    const url = new URL(server.url);
    const status = (hosts: string[]) =>
      new Promise<number>((resolve, reject) => {
        const headers: [string, string][] = [
          ...hosts.map((h): [string, string] => ['host', h]),
          ['content-type', 'application/json'],
          ['accept', BOTH],
        ];
        const req = request(
          { host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: headers.flat(), setHost: false },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(initialize);
      });
    for (const host of ['127.0.0.1:99999999', 'localhost:65536', '[::1]:99999', 'localhost:8080x'])
      expect([400, 403], host).toContain(await status([host]));
    expect(await status(['localhost:8080', 'evil.example'])).toBe(400);
    expect(await status(['localhost:8080'])).toBe(200);
  });

  it('OPTIONS → 204 with Allow: POST, as on every resource', async () => {
    const res = await fetch(server.url + '/mcp', { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('a compressed body → 415 (no content coding is read), not parsed as JSON', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await fetch(server.url + '/mcp', {
      method: 'POST',
      body: gzipSync(initialize),
      headers: { 'content-type': 'application/json', accept: BOTH, 'content-encoding': 'gzip' },
    });
    const body = await expectJsonRpcError(res, 415);
    expect(body.error.message).toMatch(/Content-Encoding/);
  });

  it('a body nested deeper than any request needs → 400 saying so, without a stack or an engine message', async () => {
    for (const text of [
      `${'['.repeat(5000)}${']'.repeat(5000)}`,
      `{"jsonrpc":"2.0","id":1,"result":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
    ]) {
      const body = await expectJsonRpcError(await post(text), 400);
      expect(JSON.stringify(body)).not.toMatch(/RangeError|stack/);
      expect(body.error.message).toMatch(/nest/i);
    }
  });

  it('the unsupported-version answer lists exactly the versions this server speaks', async () => {
    const { MCP_SERVER } = await import('../../src/lib/mcp-tools.ts');
    const body = await expectJsonRpcError(
      await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
        'mcp-protocol-version': '1999-01-01',
      }),
      400,
    );
    for (const version of MCP_SERVER.protocolVersions) expect(body.error.message).toContain(version);
    expect(body.error.message).not.toContain('2024-');
  });

  it('a response posted under the 2026-07-28 header is accepted (202), not told that version is unsupported', async () => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 5, result: {} }), {
      'mcp-protocol-version': '2026-07-28',
    });
    expect(res.status).toBe(202);
  });

  it('keeps the server healthy after all of that', async () => {
    expect((await fetch(server.url + '/health')).status).toBe(200);
  });
});

describe('JSON-RPC batches, word for word (JSON-RPC 2.0 section 6; issue 27)', () => {
  const batch = (messages: unknown[]) => post(JSON.stringify(messages), { 'mcp-protocol-version': '2025-03-26' });
  const request = (id: number | string, method: string) => ({ jsonrpc: '2.0', id, method });

  it('a batch of one request is answered with an array of one', async () => {
    const res = await batch([request(1, 'tools/list')]);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Array.isArray(body)).toBe(true);
    expect(body).toHaveLength(1);
    expect(body[0].id).toBe(1);
    expect(body[0].result.tools.length).toBeGreaterThan(0);
  });

  it('two requests with the same id are each answered, in order', async () => {
    const res = await batch([request(1, 'tools/list'), request(1, 'resources/list')]);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.map((a: { id: unknown }) => a.id)).toEqual([1, 1]);
    expect(body[0].result.tools).toBeDefined();
    expect(body[1].result.resources).toBeDefined();
  });

  it('an element that is not a JSON-RPC message gets its own -32600 with id null; the others get their answers', async () => {
    const res = await batch([request(1, 'tools/list'), 7, { jsonrpc: '2.0', id: 3 }]);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toHaveLength(3);
    expect(body[0]).toMatchObject({ id: 1, result: {} });
    for (const refused of body.slice(1))
      expect(refused).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('a batch of nothing but invalid elements is one array of errors, with 400', async () => {
    const res = await batch([1, 2, 3]);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toHaveLength(3);
    for (const refused of body) expect(refused).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('a batch of notifications only is accepted with 202 and no body', async () => {
    const res = await batch([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } },
    ]);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });
});

describe('many 2025-era clients at once', () => {
  const call = (id: number | string, name: string, args: Record<string, unknown>, version = '2025-11-25') =>
    post(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }), {
      'mcp-protocol-version': version,
    });

  it('each gets the answer to its own request, under its own id, though all count from 1', async () => {
    // Clients all number their requests from 1: requests with one id from different clients, in flight together,
    // must not be mixed up (one server answering them all would, if it saw their ids).
    const pages = ['layla', 'sam-rivera', 'nobody-here', 'layla', 'sam-rivera'];
    const asked = Array.from({ length: 40 }, (_, i) => ({
      id: i % 2 === 0 ? 1 : 'one',
      page: pages[i % pages.length]!,
    }));
    const answers = await Promise.all(
      asked.map(async ({ id, page }) => (await call(id, 'get_profile', { page })).json()),
    );
    answers.forEach((answer, i) => {
      const { id, page } = asked[i]!;
      expect(answer.id, `request ${i}`).toBe(id);
      const text = answer.result.content[0].text as string;
      if (page === 'nobody-here') {
        expect(answer.result.isError).toBe(true);
        expect(text).toContain('nobody-here');
      } else {
        expect(text, `request ${i} (${page})`).toContain(pathOf('getProfilePage', { page }));
      }
    });
  });
});

describe('/.well-known/mcp/server-card.json', () => {
  it('carries the SEP-1649 and SEP-2127 keys, with the absolute endpoint, CORS and caching', async () => {
    const res = await fetch(server.url + '/.well-known/mcp/server-card.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    const card = await res.json();
    const endpoint = 'http://localhost:8080/mcp';
    expect(card).toMatchObject({
      name: 'bio-cards-public',
      version: '1.0.0',
      websiteUrl: 'http://localhost:8080',
      serverInfo: { name: 'bio-cards-public', version: '1.0.0' },
      protocolVersion: '2026-07-28',
      transport: { type: 'streamable-http', endpoint },
      endpoint,
      remotes: [
        {
          type: 'streamable-http',
          url: endpoint,
          supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
        },
      ],
      authentication: { required: false },
    });
    expect(card.title).toBeTruthy();
    expect(card.description).toBeTruthy();
    expect(Object.keys(card.capabilities).sort()).toEqual(['completions', 'resources', 'tools']);
    expect(card.tools).toHaveLength(5);
    expect(card.resources).toHaveLength(3);
  });

  it('is mentioned by the API documentation and llms.txt', async () => {
    for (const path of ['/docs/api.md', '/llms.txt']) {
      const text = await (await fetch(server.url + path)).text();
      expect(text, path).toContain('http://localhost:8080/.well-known/mcp/server-card.json');
      expect(text, path).toContain('http://localhost:8080/mcp');
    }
  });
});
