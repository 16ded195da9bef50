// "Adding a route is one edit in src/lib/surface.ts", executed (issue 38), as the third-language test executes the
// architecture page: a scratch copy of the project gets a declaration of a new document (and the document's file in
// its build, as public/ would put it there) and a new owner-app path, each one edit of the declaration, and nothing
// else. The copy's own modules then find the document routed by its sidecar with the declared type, cache rule and
// CORS, described in OpenAPI, given a location in the front's nginx configuration and read by read_page; and the
// owner-app path disallowed by robots.txt, refused by read_page and by the import as an alias.
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../helpers/database.ts';
import { distDir, projectRoot, testConfig } from '../helpers/env.ts';

const DOCUMENT = '/.well-known/security.txt';
const DECLARATION = `  getSecurityPolicy: {
    method: 'GET',
    path: '${DOCUMENT}',
    served: 'static',
    tag: 'discovery',
    summary: 'How to report a security problem (RFC 9116)',
    description: 'Where to write about a vulnerability, and in which languages, in the RFC 9116 format.',
    media: ['text/plain'],
    cors: true,
    cache: 'discovery',
    statuses: [200],
  },
`;
const OWNER_PATH = 'wallet';
const POLICY = 'Contact: mailto:security@example.com\nExpires: 2027-11-26T00:00:00.000Z\nPreferred-Languages: ar, en\n';

let dir: string;
let copy: {
  surface: typeof import('../../src/lib/surface.ts');
  openapi: typeof import('../../src/lib/openapi.ts');
  discovery: typeof import('../../src/lib/discovery.ts');
  front: typeof import('../../scripts/front-config.ts');
};
let app: FastifyInstance;
let url: string;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'one-route-edit-'));
  for (const entry of ['src', 'sidecar', 'scripts', 'deploy', 'content', 'public', 'package.json', 'tsconfig.json'])
    cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  cpSync(distDir, join(dir, 'dist'), { recursive: true });

  // The one edit of each: a route's declaration, and a first segment of the owner app.
  const surfacePath = join(dir, 'src/lib/surface.ts');
  const surface = readFileSync(surfacePath, 'utf8');
  const edited = surface
    .replace('  mcp: {\n', `${DECLARATION}  mcp: {\n`)
    .replace("  'api',\n] as const;", `  'api',\n  '${OWNER_PATH}',\n] as const;`);
  // Each edit took: the text grew by exactly the two insertions.
  expect(edited.length).toBe(surface.length + DECLARATION.length + `  '${OWNER_PATH}',\n`.length);
  writeFileSync(surfacePath, edited);
  // The document itself, where the build puts a file of public/.
  writeFileSync(join(dir, 'dist/client', DOCUMENT), POLICY);

  copy = {
    surface: await import(join(dir, 'src/lib/surface.ts')),
    openapi: await import(join(dir, 'src/lib/openapi.ts')),
    discovery: await import(join(dir, 'src/lib/discovery.ts')),
    front: await import(join(dir, 'scripts/front-config.ts')),
  };
  const { buildApp, openServices } = (await import(
    join(dir, 'sidecar/app.ts')
  )) as typeof import('../../sidecar/app.ts');
  const config = { ...testConfig, databasePath: await createDatabase(), maxEventLoopDelayMs: Number.POSITIVE_INFINITY };
  const services = await openServices({ config, distDir: join(dir, 'dist') });
  app = await buildApp({ config, distDir: join(dir, 'dist'), services });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
  client = new Client({ name: 'one-route-edit', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
}, 120_000);
afterAll(async () => {
  await client?.close();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const readPage = async (path: string) =>
  (await client.callTool({ name: 'read_page', arguments: { path } })) as CallToolResult;
const textOf = (result: CallToolResult) => (result.content[0] as { type: 'text'; text: string }).text;

describe('a route added by one edit of its declaration', () => {
  it('is routed by the sidecar with its declared type, cache rule and CORS', async () => {
    const res = await fetch(url + copy.surface.pathOf('getSecurityPolicy' as never));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe(copy.surface.CACHE.discovery);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.text()).toBe(POLICY);
  });

  it('is an operation of OpenAPI, with its words', () => {
    const document = copy.openapi.openApiDocument(testConfig) as {
      paths: Record<string, { get?: { operationId: string; description: string; tags: string[] } }>;
    };
    expect(document.paths[DOCUMENT]?.get).toMatchObject({
      operationId: 'getSecurityPolicy',
      description: 'Where to write about a vulnerability, and in which languages, in the RFC 9116 format.',
      tags: ['discovery'],
    });
  });

  it("has a location in the front's nginx configuration, with its cache rule and CORS", () => {
    const nginx = copy.front.frontConfig({
      config: testConfig,
      listen: '127.0.0.1:8080',
      sidecars: ['127.0.0.1:8081'],
      prefix: join(dir, 'nginx'),
      dist: join(dir, 'dist/client'),
    });
    const location = new RegExp(`location = ${DOCUMENT.replace(/\./g, '\\.')} \\{[^}]*\\}`).exec(nginx)?.[0] ?? '';
    expect(location).toContain(`Cache-Control "${copy.surface.CACHE.discovery}"`);
    expect(location).toContain('Access-Control-Allow-Origin "*"');
  });

  it('is read by read_page, as a text document of the site', async () => {
    const result = await readPage(DOCUMENT);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe(POLICY);
  });
});

describe('an owner-app path added by one edit of the declaration', () => {
  it('is disallowed by robots.txt', () => {
    const lines = copy.discovery.robotsTxt(testConfig).split('\n');
    for (const rule of [`Disallow: /${OWNER_PATH}$`, `Disallow: /${OWNER_PATH}/`]) expect(lines).toContain(rule);
  });

  it('is refused by read_page', async () => {
    const result = await readPage(`/${OWNER_PATH}/balance`);
    expect(result.isError).toBe(true);
  });

  it('can never be an alias', () => {
    expect(copy.surface.aliasSchema.safeParse(OWNER_PATH).success).toBe(false);
  });
});
