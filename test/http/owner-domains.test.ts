// An owner's own address (issue 63): a profile served at a domain of its owner's, and its cards there when the owner
// chooses, every URL it names on that domain (canonical, hreflang, Open Graph, JSON-LD, twin, codes, vCard, picture),
// the platform's address for it answering 301 there, its own robots.txt, sitemap.xml and llms.txt, and a host that is
// nobody's refused. A served suite: it runs alone, on a read-only database, through the front and through the edge.
// Requests name the domain as a browser would (test/helpers/at-host.ts: the name resolves to the server).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Resvg } from '@resvg/resvg-js';
import jsQR from 'jsqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, demoData } from '../helpers/database.ts';
import { getAt } from '../helpers/at-host.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

// Northwind's profile and its card at the studio's domain; the café (Arabic and English) at its own, its card left at
// the platform's address.
const NORTHWIND = 'links.northwind.example';
const CAFE = 'qahwa.example';
const databasePath = await createDatabase({
  ...demoData,
  domains: [
    { host: 'Links.Northwind.Example', page: 'northwind-studio', cards: true },
    { host: CAFE, page: 'qahwat-alnakheel' },
  ],
});

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ databasePath });
});
afterAll(() => server.close());

const at = (host: string, path: string, headers?: Record<string, string>) => getAt(server.url, host, path, headers);
const platform = (path: string) => fetch(server.url + path, { redirect: 'manual' });
const attribute = (html: string, pattern: RegExp) => pattern.exec(html)?.[1];

function decodeQr(svg: string): string | undefined {
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: 600 }, background: '#ffffff' }).render();
  const decoded = jsQR(new Uint8ClampedArray(image.pixels), image.width, image.height);
  return decoded ? new TextDecoder().decode(new Uint8Array(decoded.binaryData)) : undefined;
}

describe("a profile at its owner's domain", () => {
  it('is the page at /, every address in it on the domain', async () => {
    const res = await at(NORTHWIND, '/');
    expect(res.status).toBe(200);
    expect(res.header('content-type')).toMatch(/^text\/html/);
    const html = res.text;
    expect(html).toContain('Northwind');
    expect(attribute(html, /<link rel="canonical" href="([^"]+)"/)).toBe(`https://${NORTHWIND}/`);
    expect(attribute(html, /<meta property="og:url" content="([^"]+)"/)).toBe(`https://${NORTHWIND}/`);
    expect(attribute(html, /<meta property="og:image" content="([^"]+)"/)).toMatch(
      new RegExp(`^https://${NORTHWIND.replaceAll('.', '\\.')}/og\\.png\\?v=`),
    );
    expect(attribute(html, /<link rel="alternate" type="text\/markdown" href="([^"]+)"/)).toBe(
      `https://${NORTHWIND}/index.md`,
    );
    const ld = JSON.parse(attribute(html, /<script type="application\/ld\+json">([\s\S]*?)<\/script>/) ?? '{}') as {
      '@graph': { '@type': string; url?: string; '@id'?: string }[];
    };
    const page = ld['@graph'].find((node) => node['@type'] === 'ProfilePage');
    expect(page?.url).toBe(`https://${NORTHWIND}/`);
    expect(ld['@graph'].some((node) => node['@id'] === `https://${NORTHWIND}/#owner`)).toBe(true);
    // Its code is its own path there; nothing links the platform's address of the page.
    expect(html).toContain('src="/qr.svg"');
    expect(html).not.toContain('/p/northwind-studio');
    expect(res.header('link')).toContain(`<https://${NORTHWIND}/index.md>; rel="alternate"; type="text/markdown"`);
    expect(res.header('content-usage')).toBe('train-ai=y, search=y');
  });

  it('answers its twin at /index.md and by negotiation, its links on the domain', async () => {
    for (const res of [await at(NORTHWIND, '/index.md'), await at(NORTHWIND, '/', { accept: 'text/markdown' })]) {
      expect(res.status).toBe(200);
      expect(res.header('content-type')).toMatch(/^text\/markdown/);
      expect(res.text).toContain(`url: 'https://${NORTHWIND}/'`);
      expect(res.text).not.toContain('/p/northwind-studio');
    }
  });

  it("its QR code leads to the domain, its picture is there, and both carry the owner's AI choice", async () => {
    const qr = await at(NORTHWIND, '/qr.svg');
    expect(qr.status).toBe(200);
    expect(decodeQr(qr.text)).toBe(`https://${NORTHWIND}/`);
    const og = await at(NORTHWIND, '/og.png');
    expect(og.status).toBe(200);
    expect(og.header('content-type')).toBe('image/png');
    expect(og.body.subarray(1, 4).toString()).toBe('PNG');
    expect(og.header('content-usage')).toBe('train-ai=y, search=y');
  });

  it("serves its cards when the owner chose so: the card's page, vCard and codes name the domain", async () => {
    const card = await at(NORTHWIND, '/c/n0rth1');
    expect(card.status).toBe(200);
    expect(attribute(card.text, /<link rel="canonical" href="([^"]+)"/)).toBe(`https://${NORTHWIND}/c/n0rth1`);
    // The card's link to its profile is the profile's address on the domain.
    expect(card.text).toMatch(/<a href="\/">[^<]+<\/a>/);
    const vcard = await at(NORTHWIND, '/c/n0rth1.vcf');
    expect(vcard.status).toBe(200);
    expect(vcard.text).toContain(`SOURCE:https://${NORTHWIND}/c/n0rth1`);
    expect(vcard.text).toContain(`https://${NORTHWIND}/\r\n`);
    expect(decodeQr((await at(NORTHWIND, '/c/n0rth1/qr.svg')).text)).toBe(`https://${NORTHWIND}/c/n0rth1`);
  });

  it("serves the assets its page loads, and nothing of the platform's or another owner's", async () => {
    const html = (await at(NORTHWIND, '/')).text;
    const assets = [...html.matchAll(/(?:href|src)="(\/(?:_astro|global-scripts|images)\/[^"]+)"/g)].map((m) => m[1]!);
    // The owner's picture among them: shown from the domain (the pages' Content-Security-Policy takes images from it).
    expect(assets.some((asset) => asset.startsWith('/images/'))).toBe(true);
    for (const asset of assets) expect((await at(NORTHWIND, asset)).status, asset).toBe(200);
    for (const path of [
      '/p/northwind-studio',
      '/p/layla',
      '/c/k7f2q9',
      '/c/nakheel1',
      '/layla',
      '/en/blog',
      '/blog',
      '/openapi.json',
      '/health',
      '/images/nothing.jpg',
      '/de',
    ]) {
      const res = await at(NORTHWIND, path);
      expect(res.status, path).toBe(404);
      expect(res.text, path).not.toContain('Layla');
    }
  });

  it('in two languages: each version at its own path there, linked both ways', async () => {
    const ar = await at(CAFE, '/ar');
    const en = await at(CAFE, '/en');
    expect(ar.status).toBe(200);
    expect(en.status).toBe(200);
    expect(attribute(en.text, /<link rel="canonical" href="([^"]+)"/)).toBe(`https://${CAFE}/en`);
    expect(en.text).toContain(`<link rel="alternate" hreflang="ar" href="https://${CAFE}/ar">`);
    expect(en.text).toContain(`<link rel="alternate" hreflang="x-default" href="https://${CAFE}/">`);
    expect(en.text).toMatch(/<a href="\/ar" hreflang="ar"/);
    // The printed address answers in the visitor's language, and says which version it is.
    const printed = await at(CAFE, '/', { 'accept-language': 'en' });
    expect(printed.status).toBe(200);
    expect(printed.header('content-location')).toBe('/en');
    expect((await at(CAFE, '/en.md')).text).toContain(`url: 'https://${CAFE}/en'`);
  });

  it('a card the owner left at the platform stays there, and links the profile at its domain', async () => {
    expect((await at(CAFE, '/c/nakheel1')).status).toBe(404);
    const card = await platform('/c/nakheel1');
    expect(card.status).toBe(200);
    expect(await card.text()).toContain(`href="https://${CAFE}/"`);
  });
});

describe("the platform's address of a page at its owner's domain", () => {
  it.each([
    ['/p/northwind-studio', `https://${NORTHWIND}/`],
    ['/p/northwind-studio.md', `https://${NORTHWIND}/index.md`],
    ['/p/northwind-studio/qr.svg', `https://${NORTHWIND}/qr.svg`],
    ['/p/northwind-studio?utm_source=card', `https://${NORTHWIND}/?utm_source=card`],
    ['/c/n0rth1', `https://${NORTHWIND}/c/n0rth1`],
    ['/c/n0rth1.vcf', `https://${NORTHWIND}/c/n0rth1.vcf`],
    ['/p/qahwat-alnakheel/en', `https://${CAFE}/en`],
  ])('%s answers 301 to %s', async (path, location) => {
    const res = await platform(path);
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(location);
    await res.arrayBuffer();
  });

  it("is not in the platform's sitemap: the domain's own lists it", async () => {
    // One urlset at this size, or an index of parts past 50,000 URLs.
    const locsOf = async (path: string) =>
      [...(await (await platform(path)).text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
    const top = await (await platform('/sitemap.xml')).clone().text();
    const locs = top.includes('<sitemapindex')
      ? (await Promise.all((await locsOf('/sitemap.xml')).map((loc) => locsOf(new URL(loc).pathname)))).flat()
      : await locsOf('/sitemap.xml');
    const paths = locs.map((loc) => new URL(loc).pathname);
    expect(paths).toContain('/p/layla');
    expect(paths).toContain('/c/nakheel1/en');
    for (const moved of ['/p/northwind-studio', '/p/qahwat-alnakheel', '/c/n0rth1'])
      expect(
        paths.filter((path) => path.startsWith(moved)),
        moved,
      ).toEqual([]);
  });

  it('answers 404 for a language the page is not in, rather than a redirect to a page that is not there', async () => {
    const res = await platform('/p/northwind-studio/ar');
    expect(res.status).toBe(404);
    await res.arrayBuffer();
    expect((await at(NORTHWIND, '/ar')).status).toBe(404);
  });

  it('leaves every other page where it is', async () => {
    for (const path of ['/p/layla', '/c/k7f2q9', '/c/nakheel1', '/'])
      expect((await platform(path)).status, path).toBe(200);
  });
});

describe("a domain's own robots.txt, sitemap.xml and llms.txt", () => {
  it('robots.txt allows the domain and names its sitemap', async () => {
    const res = await at(NORTHWIND, '/robots.txt');
    expect(res.status).toBe(200);
    expect(res.text).toContain('User-agent: *\nAllow: /');
    expect(res.text).toContain(`Sitemap: https://${NORTHWIND}/sitemap.xml`);
    expect(res.text).not.toMatch(/^(Allow|Disallow|Sitemap): .*localhost/m);
  });

  it("sitemap.xml lists the profile's versions on the domain", async () => {
    const res = await at(CAFE, '/sitemap.xml');
    expect(res.status).toBe(200);
    const locs = [...res.text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locs.sort()).toEqual([`https://${CAFE}/ar`, `https://${CAFE}/en`]);
    // With the cards the domain takes.
    const northwind = [...(await at(NORTHWIND, '/sitemap.xml')).text.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(northwind.sort()).toEqual([`https://${NORTHWIND}/`, `https://${NORTHWIND}/c/n0rth1`]);
  });

  it('llms.txt names the page and its twin on the domain', async () => {
    const res = await at(CAFE, '/llms.txt');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^# مقهى النخيل\n/);
    expect(res.text).toContain(`https://${CAFE}/ar.md`);
    // With the cards the domain takes.
    expect((await at(NORTHWIND, '/llms.txt')).text).toContain(`(https://${NORTHWIND}/c/n0rth1)`);
  });
});

describe('agents', () => {
  it("read the page by its slug or its platform path over MCP, and are given its domain's addresses", async () => {
    const client = new Client({ name: 'owner-domains-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url + '/mcp')));
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
        expect(result.isError, name).toBeFalsy();
        return (result.content[0] as { text: string }).text;
      };
      expect(await call('get_profile', { page: 'northwind-studio' })).toContain(`url: 'https://${NORTHWIND}/'`);
      expect(await call('read_page', { path: '/p/northwind-studio' })).toContain(`url: 'https://${NORTHWIND}/'`);
      expect(await call('get_digital_card', { cardId: 'n0rth1' })).toContain(`https://${NORTHWIND}/c/n0rth1`);
    } finally {
      await client.close();
    }
  });
});

describe('who names the host', () => {
  it("is the Host header alone: a forwarded host a client sends is nobody's word (no cache keyed by Host keeps another page under it)", async () => {
    for (const forwarded of [NORTHWIND, 'nobody.example']) {
      const res = await fetch(server.url + '/', { headers: { 'x-forwarded-host': forwarded } });
      expect(res.status, forwarded).toBe(200);
      const html = await res.text();
      expect(html, forwarded).not.toContain('Northwind');
      expect(html, forwarded).toContain('<link rel="canonical" href="http://localhost:8080/">');
    }
    const moved = await fetch(server.url + '/p/layla', { headers: { 'x-forwarded-host': NORTHWIND } });
    expect(moved.status).toBe(200);
  });
});

describe('a host that is no one', () => {
  it('is refused with 421, never another page, whatever the method', async () => {
    for (const path of ['/', '/p/layla', '/robots.txt']) {
      const res = await at('nobody.example', path);
      expect(res.status, path).toBe(421);
      expect(res.text).not.toContain('Layla');
    }
    expect((await getAt(server.url, 'nobody.example', '/', {}, 'DELETE')).status).toBe(421);
    // A name that is no DNS name is nobody's too, not the platform's.
    for (const host of ['links_northwind.example', '1.2.3.4.5']) expect((await at(host, '/')).status, host).toBe(421);
  });

  it("a domain's page takes GET and HEAD only, as the platform's", async () => {
    const res = await getAt(server.url, NORTHWIND, '/', {}, 'DELETE');
    expect(res.status).toBe(405);
    expect(res.header('allow')).toBe('GET, HEAD');
    expect((await getAt(server.url, NORTHWIND, '/nothing-here', {}, 'DELETE')).status).toBe(404);
  });
});
