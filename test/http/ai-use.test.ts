// An owner's choice for AI use (issue 63): AIPREF's two labels on a profile or a card, the site's where the owner said
// nothing, honoured on every representation of the owner's page (HTML, Markdown twin, share picture, vCard, QR codes)
// as Content-Usage, in the MCP results that hold it, and said at the page's foot in the page's language; in every
// shape (the served suites run through the front and the edge too). The demo data: Northwind's profile allows
// training, its card refuses search (a card's choice is its own); Layla's profile and card say nothing.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_USAGE } from '../../src/lib/ai-preferences.ts';
import { testConfig } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const usage = async (path: string, accept?: string) => {
  const res = await fetch(server.url + path, accept ? { headers: { accept } } : {});
  expect(res.status, path).toBe(200);
  await res.arrayBuffer();
  return res.headers.get('content-usage');
};

const NORTHWIND = 'train-ai=y, search=y';
const NORTHWIND_CARD = 'train-ai=n, search=n';

describe("an owner's choice for AI use", () => {
  it.each([
    ['/p/northwind-studio', NORTHWIND],
    ['/p/northwind-studio.md', NORTHWIND],
    ['/p/northwind-studio/og.png', NORTHWIND],
    ['/p/northwind-studio/qr.svg', NORTHWIND],
    ['/c/n0rth1', NORTHWIND_CARD],
    ['/c/n0rth1.vcf', NORTHWIND_CARD],
    ['/c/n0rth1/og.png', NORTHWIND_CARD],
    ['/c/n0rth1/qr.svg', NORTHWIND_CARD],
    ['/c/n0rth1/contact-qr.svg', NORTHWIND_CARD],
    ['/p/layla', CONTENT_USAGE],
    ['/c/k7f2q9.vcf', CONTENT_USAGE],
    ['/p/layla/og.png', CONTENT_USAGE],
  ])('%s says %s', async (path, expected) => {
    expect(await usage(path)).toBe(expected);
  });

  it('the negotiated twin says it too, and the site default is not what the owner chose', async () => {
    expect(await usage('/p/northwind-studio', 'text/markdown')).toBe(NORTHWIND);
    expect(NORTHWIND).not.toBe(CONTENT_USAGE);
  });

  it("is said at the page's foot, in the page's language", async () => {
    const en = await (await fetch(`${server.url}/p/northwind-studio`)).text();
    const foot = /<footer class="owner-foot">([\s\S]*?)<\/footer>/.exec(en)?.[1] ?? '';
    expect(foot).toMatch(/AI use of this page:\s*training AI models: allowed;\s*search: allowed/);
    const card = await (await fetch(`${server.url}/c/n0rth1`)).text();
    expect(card).toMatch(/training AI models: not allowed;\s*search: not allowed/);
    const ar = await (await fetch(`${server.url}/p/layla`)).text();
    expect(ar).toMatch(
      /استخدام الذكاء الاصطناعي لهذه الصفحة:\s*تدريب نماذج الذكاء الاصطناعي: غير مسموح؛\s*البحث: مسموح/,
    );
  });

  it('an MCP result that holds the page carries it in _meta', async () => {
    const client = new Client({ name: 'ai-use-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url + '/mcp')));
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect((await call('get_profile', { page: 'northwind-studio' }))._meta?.contentUsage).toBe(NORTHWIND);
      expect((await call('get_digital_card', { cardId: 'n0rth1' }))._meta?.contentUsage).toBe(NORTHWIND_CARD);
      expect((await call('read_page', { path: '/p/layla' }))._meta?.contentUsage).toBe(CONTENT_USAGE);
      const read = await client.readResource({ uri: `${testConfig.baseUrl}/p/northwind-studio` });
      expect(read.contents[0]?._meta?.contentUsage).toBe(NORTHWIND);
    } finally {
      await client.close();
    }
  });
});
