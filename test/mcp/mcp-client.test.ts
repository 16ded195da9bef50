// The MCP endpoint through the official SDK client over HTTP, and its error statuses through raw fetch.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Database from 'better-sqlite3';
import matter from 'gray-matter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../helpers/database.ts';
import { readBuilt } from '../helpers/dist.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const base = 'http://localhost:8080';
let server: TestServer;
let client: Client;

beforeAll(async () => {
  // The demo data, and an alias of Layla's (paid) under another name: get_profile resolves it (issue 62).
  const databasePath = await createDatabase();
  const db = new Database(databasePath);
  db.prepare(
    "INSERT INTO aliases (alias, profile_id) SELECT 'layla-ahmad', id FROM profiles WHERE slug = 'layla'",
  ).run();
  db.close();
  server = await startTestServer({ databasePath });
  client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url + '/mcp')));
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) => (result.content[0] as { type: 'text'; text: string }).text;
const httpMarkdown = async (path: string) =>
  (await fetch(server.url + path, { headers: { accept: 'text/markdown' } })).text();

describe('initialize', () => {
  it('negotiates a supported protocol version and describes a read-only server with tools and resources', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'bio-cards-public', version: '1.0.0' });
    const caps = client.getServerCapabilities();
    expect(caps?.tools).toBeDefined();
    expect(caps?.resources).toBeDefined();
    expect(client.getInstructions()).toContain('Read-only');
  });
});

describe('tools/list', () => {
  it('lists the five tools with titles, described schemas and read-only annotations', async () => {
    const { tools } = await client.listTools();
    // In the registry's fixed order.
    expect(tools.map((t) => t.name)).toEqual([
      'get_profile',
      'get_digital_card',
      'list_blog_articles',
      'get_blog_article',
      'read_page',
    ]);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      for (const [prop, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${tool.name}.${prop}`).toBeTruthy();
      }
    }
    expect(tools.find((t) => t.name === 'list_blog_articles')?.outputSchema).toBeDefined();
  });

  it('matches the server card exactly: one registry', async () => {
    const card = await (await fetch(server.url + '/.well-known/mcp/server-card.json')).json();
    const { tools } = await client.listTools();
    for (const tool of tools) {
      const listed = card.tools.find((t: { name: string }) => t.name === tool.name);
      expect(listed, tool.name).toBeDefined();
      expect(listed.title).toBe(tool.title);
      expect(listed.description).toBe(tool.description);
      expect(listed.annotations).toEqual(tool.annotations);
      // The same JSON Schema, to the letter: 2020-12, no additional properties.
      expect(listed.inputSchema).toEqual(tool.inputSchema);
      expect(tool.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(tool.inputSchema.additionalProperties).toBe(false);
    }
    expect(card.tools).toHaveLength(tools.length);
  });
});

describe('tools/call', () => {
  it('get_profile returns exactly the Markdown of GET /p/{page} with Accept: text/markdown', async () => {
    const result = await call('get_profile', { page: 'layla' });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(await httpMarkdown('/p/layla'));
    expect(matter(textOf(result)).data).toMatchObject({ url: `${base}/p/layla`, lang: 'ar' });
  });

  it('get_profile resolves an alias as read_page and GET /{alias} do (issue 62)', async () => {
    const result = await call('get_profile', { page: 'layla-ahmad' });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(await httpMarkdown('/p/layla'));
    // An alias of a profile whose plan has none (the café's, free) leads nowhere, as GET /nakheel does.
    expect((await call('get_profile', { page: 'nakheel' })).isError).toBe(true);
  });

  it('get_profile of an unknown or unpublished profile is a tool error', async () => {
    for (const page of ['nobody', 'coming-soon', '../etc']) {
      const result = await call('get_profile', { page });
      expect(result.isError, page).toBe(true);
      expect(textOf(result)).toContain('No published profile');
    }
  });

  it('get_digital_card returns the card page as Markdown, or says where a redirect card leads', async () => {
    expect(textOf(await call('get_digital_card', { cardId: 'k7f2q9' }))).toBe(await httpMarkdown('/c/k7f2q9'));
    const redirect = textOf(await call('get_digital_card', { cardId: 'r8x1' }));
    expect(Object.keys(matter(redirect).data)).toEqual(['title', 'description', 'url', 'lang']);
    expect(redirect).toContain('[https://example.com/](https://example.com/)');
    const missing = await call('get_digital_card', { cardId: 'nope99' });
    expect(missing.isError).toBe(true);
  });

  it('list_blog_articles lists both languages newest first, as structured content and JSON text', async () => {
    const result = await call('list_blog_articles', {});
    const { articles } = result.structuredContent as {
      articles: { slug: string; title: string; date: string; url: string; lang: string }[];
    };
    expect(JSON.parse(textOf(result))).toEqual(articles);
    expect(new Set(articles.map((a) => a.lang))).toEqual(new Set(['ar', 'en']));
    expect(articles.length).toBe(8);
    const dates = articles.map((a) => a.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    for (const a of articles) {
      expect(a.url).toBe(`${base}/${a.lang}/blog/${a.slug}`);
      expect(new Date(a.date).toISOString()).toBe(a.date);
    }
    const arabic = (await call('list_blog_articles', { lang: 'ar' })).structuredContent as {
      articles: { lang: string }[];
    };
    expect(arabic.articles.length).toBe(4);
    expect(arabic.articles.every((a) => a.lang === 'ar')).toBe(true);
  });

  it('get_blog_article finds the slug in its language, and returns the twin', async () => {
    expect(textOf(await call('get_blog_article', { slug: 'bitaqat-qr-am-nfc' }))).toBe(
      readBuilt('/ar/blog/bitaqat-qr-am-nfc.md'),
    );
    expect(textOf(await call('get_blog_article', { slug: 'qr-or-nfc-business-card', lang: 'en' }))).toBe(
      readBuilt('/en/blog/qr-or-nfc-business-card.md'),
    );
    const wrongLang = await call('get_blog_article', { slug: 'qr-or-nfc-business-card', lang: 'ar' });
    expect(wrongLang.isError).toBe(true);
    expect(textOf(wrongLang)).toContain('list_blog_articles');
  });

  it('read_page resolves paths and own-origin URLs like the HTTP router, following its redirects', async () => {
    expect(textOf(await call('read_page', { path: '/en/blog' }))).toBe(await httpMarkdown('/en/blog'));
    expect(textOf(await call('read_page', { path: `${base}/p/sam-rivera` }))).toBe(await httpMarkdown('/p/sam-rivera'));
    expect(textOf(await call('read_page', { path: '/' }))).toBe(readBuilt('/index.md'));
    // An alias redirects to its profile.
    expect(textOf(await call('read_page', { path: '/layla' }))).toBe(await httpMarkdown('/p/layla'));
    expect(textOf(await call('read_page', { path: '/auth.md' }))).toBe(readBuilt('/auth.md'));
    const missing = await call('read_page', { path: '/en/blog/nothing' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('404');
  });

  it('read_page reads every text document the site serves: both feeds, the sitemap, the discovery documents', async () => {
    // One rule of what is text (src/lib/media-types.ts): the JSON Feed was refused as "not a text document" (issue 38).
    for (const path of ['/en/blog/feed.json', '/ar/blog/rss.xml', '/llms.txt', '/.well-known/api-catalog']) {
      const result = await call('read_page', { path });
      expect(result.isError ?? false, `${path}: ${textOf(result)}`).toBe(false);
      expect(textOf(result), path).toBe(readBuilt(path));
    }
  });

  it('read_page refuses other origins, traversal, the owner app and /mcp, and never reads a file outside the site', async () => {
    for (const path of [
      'https://evil.example/p/layla',
      'http://localhost:9999/p/layla',
      '/../package.json',
      '/global-scripts/../../package.json',
      '/%2e%2e/package.json',
      '/login',
      '/login?next=/p/x',
      '/oauth/callback',
      '/payment',
      '/mcp',
      'file:///etc/passwd',
      'p/layla',
    ]) {
      const result = await call('read_page', { path });
      expect(result.isError, path).toBe(true);
      expect(textOf(result), path).not.toContain('devDependencies');
      expect(textOf(result), path).not.toContain('root:');
    }
  });

  // A network-path reference names another host, not a path here (issue 36: it read this site's /p/layla).
  it('read_page refuses a path that starts with two slashes as another site, saying so', async () => {
    for (const path of ['//evil.example/p/layla', '//login', '///p/layla', '/\\evil.example/p/layla']) {
      const result = await call('read_page', { path });
      expect(result.isError, path).toBe(true);
      expect(textOf(result), path).not.toMatch(/owner app/);
      expect(textOf(result), path).not.toContain('Layla');
    }
    expect(textOf(await call('read_page', { path: '//evil.example/p/layla' }))).toMatch(/another (site|host)/);
  });

  it('answers an unknown tool with the protocol error -32602 naming it, as the specification lists it', async () => {
    await expect(call('delete_everything', {})).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('delete_everything'),
    });
    // Names that an object's prototype holds are tools of no one's either (issue 36: "Tool constructor disabled").
    const unknown = await call('delete_everything', {}).catch((err: Error) => err.message);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const message = await call(name, {}).catch(
        (err: { code: number; message: string }) => (expect(err.code).toBe(-32602), err.message),
      );
      expect(message, name).toBe(String(unknown).replace('delete_everything', name));
    }
  });

  it('refuses a tools/list cursor it never gave, instead of starting over', async () => {
    await expect(client.listTools({ cursor: 'garbage' })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('resource templates and completion', () => {
  it('lists a template for every public page kind', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      `${base}/p/{page}`,
      `${base}/c/{cardId}`,
      `${base}/{lang}/blog/{slug}`,
    ]);
    for (const t of resourceTemplates) {
      expect(t.mimeType).toBe('text/markdown');
      expect(t.description?.length).toBeGreaterThan(20);
    }
    expect(client.getServerCapabilities()?.completions).toBeDefined();
  });

  it('reads a page of each template as the same Markdown as GET with Accept: text/markdown', async () => {
    for (const path of ['/p/layla', '/c/k7f2q9', '/en/blog/qr-or-nfc-business-card', '/ar/blog/bitaqat-qr-am-nfc']) {
      const { contents } = await client.readResource({ uri: base + path });
      expect(contents).toHaveLength(1);
      expect(contents[0]).toMatchObject({ uri: base + path, mimeType: 'text/markdown' });
      expect((contents[0] as { text: string }).text, path).toBe(await httpMarkdown(path));
    }
  });

  it('an unknown page of a template is resource-not-found', async () => {
    for (const path of ['/p/nobody', '/c/r8x1', '/en/blog/missing', '/fr/blog/x']) {
      await expect(client.readResource({ uri: base + path }), path).rejects.toThrow(/Resource not found/);
    }
  });

  it('completes the languages and the article slugs, never profiles', async () => {
    const lang = await client.complete({
      ref: { type: 'ref/resource', uri: `${base}/{lang}/blog/{slug}` },
      argument: { name: 'lang', value: 'a' },
    });
    expect(lang.completion.values).toEqual(['ar']);
    const slug = await client.complete({
      ref: { type: 'ref/resource', uri: `${base}/{lang}/blog/{slug}` },
      argument: { name: 'slug', value: 'qr' },
      context: { arguments: { lang: 'en' } },
    });
    expect(slug.completion.values).toEqual(['qr-or-nfc-business-card']);
    const page = await client.complete({
      ref: { type: 'ref/resource', uri: `${base}/p/{page}` },
      argument: { name: 'page', value: 'l' },
    });
    expect(page.completion.values).toEqual([]);
  });
});

describe('resources', () => {
  it('lists the API docs, the auth policy and the OpenAPI document under their public URLs', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
      [`${base}/docs/api.md`, 'text/markdown'],
      [`${base}/auth.md`, 'text/markdown'],
      [`${base}/openapi.json`, 'application/json'],
    ]);
    for (const r of resources) expect(r.title).toBeTruthy();
  });

  it('reads the same bytes as the HTTP endpoints', async () => {
    for (const path of ['/docs/api.md', '/auth.md', '/openapi.json']) {
      const { contents } = await client.readResource({ uri: base + path });
      expect((contents[0] as { text: string }).text).toBe(await (await fetch(server.url + path)).text());
    }
  });

  it('answers an unknown resource with JSON-RPC error -32002', async () => {
    await expect(client.readResource({ uri: `${base}/package.json` })).rejects.toMatchObject({ code: -32002 });
  });
});
