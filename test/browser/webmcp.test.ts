// WebMCP in a real Chromium: with the feature flag (WebMCP, what a user turns on) and with the testing flag
// (WebMCPTesting) the site's six tools register; with the first they work; without either, nothing breaks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, visit } from '../helpers/browser.ts';
import { readBuilt } from '../helpers/dist.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: unknown;
  annotations?: { readOnlyHint?: boolean; openWorldHint?: boolean; untrustedContentHint?: boolean };
}

let server: TestServer;
const browsers: Record<string, Browser> = {};
let plain: Browser;
beforeAll(async () => {
  server = await startTestServer();
  for (const feature of ['WebMCP', 'WebMCPTesting'])
    browsers[feature] = await launchChromium([`--enable-features=${feature}`]);
  plain = await launchChromium();
});
afterAll(async () => {
  for (const browser of Object.values(browsers)) await browser.close();
  await plain?.close();
  await server?.close();
});

/** `path` in the browser's one tab, and the console errors, uncaught exceptions and failed requests it leads to. */
async function open(browser: Browser, path: string): Promise<{ page: Page; errors: string[] }> {
  const { page, problems } = await visit(browser, server.url + path);
  return { page, errors: problems };
}

const listTools = (page: Page) =>
  page.evaluate(async () => {
    const context = (document as unknown as { modelContext: { getTools: () => Promise<ListedTool[]> } }).modelContext;
    return (await context.getTools()).map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: typeof t.inputSchema === 'string' ? JSON.parse(t.inputSchema) : t.inputSchema,
      annotations: t.annotations,
    }));
  });

const execute = (page: Page, name: string, input: Record<string, unknown>) =>
  page.evaluate(
    async ([toolName, args]) => {
      const context = (
        document as unknown as {
          modelContext: {
            getTools: () => Promise<{ name: string }[]>;
            executeTool: (t: unknown, i: unknown) => Promise<string>;
          };
        }
      ).modelContext;
      const tool = (await context.getTools()).find((t) => t.name === toolName);
      return JSON.parse(await context.executeTool(tool, args));
    },
    [name, input] as const,
  );

describe.each(['WebMCP', 'WebMCPTesting'])('WebMCP with the browser API (--enable-features=%s)', (feature) => {
  let webmcp: Browser;
  beforeAll(() => {
    webmcp = browsers[feature]!;
  });

  it('registers the six tools with descriptions, object schemas and read-only annotations', async () => {
    const { page, errors } = await open(webmcp, '/');
    await page.waitForFunction(
      async () =>
        (
          await (
            document as unknown as { modelContext: { getTools: () => Promise<unknown[]> } }
          ).modelContext.getTools()
        ).length === 6,
    );
    const tools = await listTools(page);
    expect(tools.map((t) => t.name).sort()).toEqual([
      'list_blog_articles',
      'navigate',
      'open_digital_card',
      'open_profile',
      'read_page',
      'switch_language',
    ]);
    for (const tool of tools) {
      expect(tool.description.length, tool.name).toBeGreaterThan(20);
      expect((tool.inputSchema as { type: string }).type, tool.name).toBe('object');
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      expect(tool.title?.length, tool.name).toBeGreaterThan(3);
      // Only read_page returns what owners wrote.
      expect(tool.annotations?.untrustedContentHint ?? false, tool.name).toBe(tool.name === 'read_page');
    }
    expect((tools.find((t) => t.name === 'open_profile')?.inputSchema as { required: string[] }).required).toEqual([
      'page',
    ]);
    expect(errors).toEqual([]);
  });

  it('a name another script took first is refused by the browser; the other tools still register, and nothing is thrown', async () => {
    const page = await webmcp.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.addInitScript(() => {
      const context = (document as unknown as { modelContext: { registerTool: (tool: unknown) => Promise<void> } })
        .modelContext;
      void context.registerTool({
        name: 'read_page',
        description: 'Another script on the page took this name first.',
        inputSchema: { type: 'object' },
        execute: () => 'theirs',
      });
    });
    await page.goto(server.url + '/');
    await page.waitForFunction(
      async () =>
        (
          await (
            document as unknown as { modelContext: { getTools: () => Promise<unknown[]> } }
          ).modelContext.getTools()
        ).length === 6,
    );
    const tools = await listTools(page);
    expect(tools.find((t) => t.name === 'read_page')?.description).toBe(
      'Another script on the page took this name first.',
    );
    expect(tools.map((t) => t.name).sort()).toEqual([
      'list_blog_articles',
      'navigate',
      'open_digital_card',
      'open_profile',
      'read_page',
      'switch_language',
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });
});

// What each tool does is the script's, not the flag's: run once, with the flag a user turns on (both flags expose the
// same document.modelContext, and register the same tools above).
describe('the six tools at work (--enable-features=WebMCP)', () => {
  let webmcp: Browser;
  beforeAll(() => {
    webmcp = browsers.WebMCP!;
  });

  it("list_blog_articles returns the site's articles, filtered by language", async () => {
    const { page } = await open(webmcp, '/ar');
    const all = await execute(page, 'list_blog_articles', {});
    expect(all.articles).toHaveLength(8);
    const arabic = await execute(page, 'list_blog_articles', { lang: 'ar' });
    expect(arabic.articles.map((a: { lang: string }) => a.lang)).toEqual(['ar', 'ar', 'ar', 'ar']);
  });

  it('read_page returns the Markdown twin of a page on this site, and refuses other sites', async () => {
    const { page } = await open(webmcp, '/');
    const result = await execute(page, 'read_page', { path: '/en/blog/qr-or-nfc-business-card' });
    expect(result.status).toBe(200);
    expect(result.markdown).toBe(readBuilt('/en/blog/qr-or-nfc-business-card.md'));
    const profile = await execute(page, 'read_page', { path: '/p/layla' });
    expect(profile.markdown).toContain('# ليلى الأحمد');
    for (const path of ['https://evil.example/', '/login', '/../package.json']) {
      expect((await execute(page, 'read_page', { path })).error, path).toBeTruthy();
    }
  });

  it('switch_language goes to the translation of the current article', async () => {
    const { page } = await open(webmcp, '/en/blog/qr-or-nfc-business-card');
    await Promise.all([
      page.waitForURL('**/ar/blog/bitaqat-qr-am-nfc'),
      execute(page, 'switch_language', { lang: 'ar' }).catch(() => undefined),
    ]);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('ar');
  });

  it('open_profile and navigate stay on this site', async () => {
    const { page } = await open(webmcp, '/');
    await Promise.all([
      page.waitForURL('**/p/sam-rivera'),
      execute(page, 'open_profile', { page: 'sam-rivera' }).catch(() => undefined),
    ]);
    const refused = await execute(page, 'navigate', { path: 'https://evil.example/' });
    expect(refused.error).toBeTruthy();
    expect(new URL(page.url()).pathname).toBe('/p/sam-rivera');
  });

  it('navigate never leaves the origin, however the path is written', async () => {
    const { page } = await open(webmcp, '/');
    const origin = new URL(page.url()).origin;
    // A same-origin URL whose path starts with // used to be assigned as a path: a protocol-relative URL to evil.example.
    await Promise.all([
      page.waitForEvent('framenavigated'),
      execute(page, 'navigate', { path: `${origin}//evil.example/x` }).catch(() => undefined),
    ]);
    expect(new URL(page.url()).origin).toBe(origin);
    expect(new URL(page.url()).pathname).toBe('//evil.example/x');
    await page.goto(origin + '/');
    for (const path of ['//evil.example/x', '/%6Cogin', '/%2F%2Flogin']) {
      const result = await execute(page, 'navigate', { path });
      expect(result.error, path).toBeTruthy();
    }
    expect(new URL(page.url()).pathname).toBe('/');
  });
});

describe('WebMCP without the browser API', () => {
  it('does nothing and logs no error', async () => {
    const { page, errors } = await open(plain, '/');
    expect(await page.evaluate(() => 'modelContext' in document || 'modelContext' in navigator)).toBe(false);
    expect(
      await page.evaluate(() => Array.from(document.scripts).some((s) => s.src.endsWith('/global-scripts/webmcp.js'))),
    ).toBe(true);
    expect(errors).toEqual([]);
  });
});
