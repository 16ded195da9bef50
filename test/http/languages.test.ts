// One owner, both languages (issue 48): a profile and a card in Arabic and English, each version at an address of its
// own, linked both ways, and the printed address answering in the visitor's language. A served suite: it runs alone,
// on a read-only database, through the front and through the edge (where a version is kept once, whatever the
// browser's header).
import { Resvg } from '@resvg/resvg-js';
import { createDocument } from '@mixmark-io/domino';
import ICAL from 'ical.js';
import jsQR from 'jsqr';
import matter from 'gray-matter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, demoData } from '../helpers/database.ts';
import { throughEdge } from '../helpers/edge.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const base = 'http://localhost:8080';
const BOTH = 'application/json, text/event-stream';

// The demo (the café and its manager's card in Arabic and English; Layla in Arabic only), and a profile whose English
// version leaves its bio and one link untranslated.
const databasePath = await createDatabase({
  ...demoData,
  profiles: [
    ...(demoData.profiles as object[]),
    {
      slug: 'half-translated',
      name: 'نصف مترجم',
      bio: 'نبذة لم تترجم',
      lang: 'ar',
      links: [
        { title: 'الأول', url: 'https://example.com/one', section: 'قسم' },
        { title: 'الثاني', url: 'https://example.com/two', section: 'قسم' },
      ],
      translations: { en: { name: 'Half translated', links: { 'https://example.com/two': 'The second' } } },
    },
  ],
});

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ databasePath });
});
afterAll(() => server.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(server.url + path, { headers, redirect: 'manual' });
const doc = async (path: string, headers: Record<string, string> = {}) => {
  const res = await get(path, headers);
  expect(res.status, path).toBe(200);
  return createDocument(await res.text(), true);
};
const attr = (d: Document, selector: string, name: string) => d.querySelector(selector)?.getAttribute(name) ?? null;
const alternates = (d: Document) =>
  Object.fromEntries(
    [...d.querySelectorAll('link[rel="alternate"][hreflang]')].map((l) => [
      l.getAttribute('hreflang'),
      l.getAttribute('href'),
    ]),
  );
/** The JSON-LD graph's nodes of a page, by type. */
const graphOf = (d: Document) =>
  (
    JSON.parse(d.querySelector('script[type="application/ld+json"]')?.textContent ?? '{}') as {
      '@graph': Record<string, unknown>[];
    }
  )['@graph'];

const CAFE = { ar: `${base}/p/qahwat-alnakheel/ar`, en: `${base}/p/qahwat-alnakheel/en` };

describe('a profile in two languages', () => {
  it('has a version at an address of its own per language, each its own canonical URL, linked both ways', async () => {
    for (const [lang, dir, name] of [
      ['ar', 'rtl', 'مقهى النخيل'],
      ['en', 'ltr', 'Al Nakheel Café'],
    ] as const) {
      const res = await get(`/p/qahwat-alnakheel/${lang}`);
      expect(res.headers.get('content-language')).toBe(lang);
      // Its own address names one language: it does not vary on the visitor's.
      expect(res.headers.get('vary')).toBe('Accept, Accept-Encoding');
      const d = createDocument(await res.text(), true);
      expect(attr(d, 'html', 'lang')).toBe(lang);
      expect(attr(d, 'html', 'dir')).toBe(dir);
      expect(attr(d, 'link[rel="canonical"]', 'href')).toBe(CAFE[lang]);
      expect(alternates(d)).toEqual({ ar: CAFE.ar, en: CAFE.en, 'x-default': `${base}/p/qahwat-alnakheel` });
      expect(d.querySelector('h1')?.textContent?.trim()).toBe(name);
      expect(attr(d, 'meta[property="og:url"]', 'content')).toBe(CAFE[lang]);
    }
  });

  it("shows the owner's words in the version's language, the links in the owner's order, pinned first", async () => {
    const d = await doc('/p/qahwat-alnakheel/en');
    expect(d.querySelector('.bio')?.textContent?.trim()).toMatch(/^Specialty coffee/);
    expect([...d.querySelectorAll('.profile-links a')].map((a) => a.textContent?.trim())).toEqual([
      'Order on WhatsApp',
      'Drinks menu',
      'Call us',
      'Find us on the map',
    ]);
  });

  it("switches to the same owner in the other language, from the page itself, not to the site's homepage", async () => {
    for (const [lang, other, label] of [
      ['ar', 'en', 'English'],
      ['en', 'ar', 'العربية'],
    ] as const) {
      const d = await doc(`/p/qahwat-alnakheel/${lang}`);
      const links = [...d.querySelectorAll('.owner-languages a')];
      expect(links.map((a) => [a.getAttribute('href'), a.getAttribute('hreflang'), a.getAttribute('lang')])).toEqual([
        [`/p/qahwat-alnakheel/${other}`, other, other],
      ]);
      expect(links[0]?.textContent?.trim()).toBe(label);
      // The site's header offers no language of its own on an owner's page.
      expect(d.querySelectorAll('.site-header [hreflang]')).toHaveLength(0);
    }
  });

  it("marks what the owner left untranslated as the profile's own language, isolated", async () => {
    const d = await doc('/p/half-translated/en');
    expect(d.querySelector('h1 bdi')?.textContent).toBe('Half translated');
    expect(attr(d, 'h1 bdi', 'lang')).toBeNull();
    expect(attr(d, '.bio', 'lang')).toBe('ar');
    expect(attr(d, '.bio', 'dir')).toBe('rtl');
    const titles = [...d.querySelectorAll('.profile-links bdi')].map((b) => [b.textContent, b.getAttribute('lang')]);
    expect(titles).toEqual([
      ['الأول', 'ar'],
      ['The second', null],
    ]);
    // Its section's title too (issue 49).
    expect(d.querySelector('h2.link-section bdi')?.textContent).toBe('قسم');
    expect(attr(d, 'h2.link-section bdi', 'lang')).toBe('ar');
    expect(attr(d, 'h2.link-section bdi', 'dir')).toBe('rtl');
  });

  it('has a Markdown twin per language, whose front matter names that version', async () => {
    for (const lang of ['ar', 'en'] as const) {
      const res = await get(`/p/qahwat-alnakheel/${lang}.md`);
      expect(res.status).toBe(200);
      const twin = matter(await res.text());
      expect(twin.data).toMatchObject({ lang, url: CAFE[lang] });
      // It names the other version, as the page does.
      expect(twin.content).toContain(`](${CAFE[lang === 'ar' ? 'en' : 'ar']})`);
    }
    const en = matter(await (await get('/p/qahwat-alnakheel/en.md')).text());
    expect(en.data.title).toBe('Al Nakheel Café');
    expect(en.content).toContain('[Order on WhatsApp](https://wa.me/966500000001)');
  });

  it('relates the versions in its structured data and names the owner in both languages', async () => {
    const [ar, en] = [graphOf(await doc('/p/qahwat-alnakheel/ar')), graphOf(await doc('/p/qahwat-alnakheel/en'))];
    const pageOf = (graph: Record<string, unknown>[]) => graph.find((n) => n['@type'] === 'ProfilePage')!;
    // The owner is the page's main entity (a café with a place is a LocalBusiness).
    const ownerOf = (graph: Record<string, unknown>[]) =>
      graph.find((n) => n['@id'] === (pageOf(graph).mainEntity as { '@id': string })['@id'])!;
    expect(pageOf(ar)).toMatchObject({ inLanguage: 'ar', url: CAFE.ar });
    expect(pageOf(ar).workTranslation).toEqual([
      { '@id': `${CAFE.en}#page`, '@type': 'ProfilePage', url: CAFE.en, inLanguage: 'en' },
    ]);
    expect(pageOf(en)).toMatchObject({
      inLanguage: 'en',
      translationOfWork: { '@id': `${CAFE.ar}#page`, '@type': 'ProfilePage', url: CAFE.ar, inLanguage: 'ar' },
    });
    // One owner, whichever version describes them.
    expect(ownerOf(en)['@id']).toBe(ownerOf(ar)['@id']);
    expect(ownerOf(en)).toMatchObject({
      '@type': 'LocalBusiness',
      name: 'Al Nakheel Café',
      alternateName: ['مقهى النخيل'],
    });
    expect(ownerOf(ar)).toMatchObject({ name: 'مقهى النخيل', alternateName: ['Al Nakheel Café'] });
  });

  it('draws a link-preview picture per language, which each version names', async () => {
    const pictures = await Promise.all(
      (['ar', 'en'] as const).map(async (lang) => {
        const d = await doc(`/p/qahwat-alnakheel/${lang}`);
        const src = attr(d, 'meta[property="og:image"]', 'content') ?? '';
        expect(src.startsWith(`${base}/p/qahwat-alnakheel/${lang}/og.png?v=`)).toBe(true);
        const res = await get(new URL(src).pathname);
        expect(res.headers.get('content-type')).toBe('image/png');
        return Buffer.from(await res.arrayBuffer());
      }),
    );
    expect(pictures[0]!.equals(pictures[1]!)).toBe(false);
  });
});

describe('the printed address /p/{page}', () => {
  const printed = async (acceptLanguage?: string, accept?: string) => {
    const res = await get('/p/qahwat-alnakheel', {
      ...(acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage }),
      ...(accept ? { accept } : {}),
    });
    expect(res.status).toBe(200);
    return res;
  };

  it.each([
    ['en-GB,en;q=0.9', 'en'],
    ['en-US', 'en'],
    ['fr, en;q=0.3', 'en'],
    ['ar-SA,ar;q=0.9,en;q=0.8', 'ar'],
    ['ar', 'ar'],
    // None the owner has, or no preference at all (a crawler): the owner's own language.
    ['fr', 'ar'],
    ['*', 'ar'],
    [undefined, 'ar'],
  ])('with Accept-Language %s answers in %s, in one round trip, naming that version', async (header, lang) => {
    const res = await printed(header);
    expect(res.headers.get('content-language')).toBe(lang);
    expect(res.headers.get('content-location')).toBe(`/p/qahwat-alnakheel/${lang}`);
    // RFC 9110 §12.5.5: the answer depends on Accept-Language; caches must key on it.
    expect(res.headers.get('vary')).toBe('Accept, Accept-Language, Accept-Encoding');
    const d = createDocument(await res.text(), true);
    expect(attr(d, 'html', 'lang')).toBe(lang);
    expect(attr(d, 'link[rel="canonical"]', 'href')).toBe(CAFE[lang as 'ar' | 'en']);
  });

  it('negotiates its Markdown the same way, naming the twin of the version', async () => {
    const res = await printed('en', 'text/markdown');
    expect(res.headers.get('content-location')).toBe('/p/qahwat-alnakheel/en.md');
    expect(matter(await res.text()).data).toMatchObject({ lang: 'en', url: CAFE.en });
    const twin = await get('/p/qahwat-alnakheel.md', { 'accept-language': 'en' });
    expect(matter(await twin.text()).data.lang).toBe('en');
  });

  it('of a profile in one language neither varies on the visitor nor offers a switch', async () => {
    const res = await get('/p/layla', { 'accept-language': 'en' });
    expect(res.headers.get('vary')).toBe('Accept, Accept-Encoding');
    expect(res.headers.get('content-location')).toBeNull();
    const d = createDocument(await res.text(), true);
    expect(attr(d, 'html', 'lang')).toBe('ar');
    expect(attr(d, 'link[rel="canonical"]', 'href')).toBe(`${base}/p/layla`);
    expect(d.querySelectorAll('link[hreflang], .owner-languages, .site-header [hreflang]')).toHaveLength(0);
    // Its own language's address answers too (canonical: the one address); a language it is not in is 404.
    expect(attr(await doc('/p/layla/ar'), 'link[rel="canonical"]', 'href')).toBe(`${base}/p/layla`);
    expect((await get('/p/layla/en')).status).toBe(404);
    expect((await get('/p/layla/en.md')).status).toBe(404);
    expect((await get('/p/layla/en/og.png')).status).toBe(404);
    expect((await get('/p/layla/fr')).status).toBe(404);
  });

  it('answers the headers of one language with one copy of its version: at the edge, kept once a language', async () => {
    // Through the edge, Accept-Language is reduced to one language of the site (deploy/edge.vcl), so the first reader
    // of a language fills its copy and every other header of that language is a hit on it; a visitor who prefers no
    // language of the site is served the owner's own language's copy. Alone or through the front: the same versions.
    const asked = async (header: string | undefined) => {
      const res = await printed(header);
      return { lang: res.headers.get('content-language'), cache: res.headers.get('cache-status') ?? '' };
    };
    await printed('en');
    await printed('ar');
    for (const [header, lang] of [
      ['en-GB,en;q=0.9', 'en'],
      ['en-US', 'en'],
      ['fr, en;q=0.5', 'en'],
      ['EN', 'en'],
      ['ar-SA', 'ar'],
      ['ar-EG;q=0.9, en;q=0.1', 'ar'],
      [undefined, 'ar'],
      ['fr', 'ar'],
      ['de-DE', 'ar'],
    ] as const) {
      const answer = await asked(header);
      expect(answer.lang, String(header)).toBe(lang);
      if (throughEdge) expect(answer.cache, String(header)).toMatch(/^edge; hit/);
    }
    // The header naming the owner's language is for an edge: none goes out from one.
    if (throughEdge) expect((await printed(undefined)).headers.get('x-own-language')).toBeNull();
  });
});

describe('a card in two languages', () => {
  it('has a version per language, linked both ways, the holder speaking as a person', async () => {
    const en = await doc('/c/nakheel1/en');
    expect(attr(en, 'html', 'lang')).toBe('en');
    expect(attr(en, 'link[rel="canonical"]', 'href')).toBe(`${base}/c/nakheel1/en`);
    expect(alternates(en)).toEqual({
      ar: `${base}/c/nakheel1/ar`,
      en: `${base}/c/nakheel1/en`,
      'x-default': `${base}/c/nakheel1`,
    });
    expect(en.querySelector('h1')?.textContent?.trim()).toBe('Noura Al-Qahtani');
    expect(en.querySelector('.role')?.textContent?.trim()).toBe('Café manager');
    expect(en.querySelector('.organization')?.textContent?.trim()).toBe('Al Nakheel Café');
    expect(en.querySelector('.owner-languages a')?.getAttribute('href')).toBe('/c/nakheel1/ar');
    expect(en.querySelector('.codes summary')?.textContent?.trim()).toBe('Show my code');
    const res = await get('/c/nakheel1', { 'accept-language': 'en-GB' });
    expect(res.headers.get('content-location')).toBe('/c/nakheel1/en');
    expect((await get('/c/k7f2q9/en')).status).toBe(404);
    // A redirect-mode card has no language version.
    expect((await get('/c/r8x1/en')).status).toBe(404);
  });

  it('saves a contact that carries both names and both organisations, in fields contacts apps show and search', async () => {
    const res = await get('/c/nakheel1.vcf');
    const card = new ICAL.Component(ICAL.parse(await res.text()) as unknown[]);
    const value = (name: string) => card.getFirstPropertyValue(name);
    expect(value('fn')).toBe('نورة القحطاني');
    expect(value('org')).toBe('مقهى النخيل');
    expect(value('x-phonetic-first-name')).toBe('Noura');
    expect(value('x-phonetic-last-name')).toBe('Al-Qahtani');
    expect(value('x-phonetic-org')).toBe('Al Nakheel Café');
    // A card in one language has none of them.
    const layla = new ICAL.Component(ICAL.parse(await (await get('/c/k7f2q9.vcf')).text()) as unknown[]);
    expect(layla.getAllProperties('x-phonetic-first-name')).toHaveLength(0);
  });

  it('keeps its offline contact code scannable, with both names in it', async () => {
    const svg = await (await get('/c/nakheel1/contact-qr.svg')).text();
    const image = new Resvg(svg, { fitTo: { mode: 'width', value: 600 }, background: '#ffffff' }).render();
    const decoded = jsQR(new Uint8ClampedArray(image.pixels), image.width, image.height);
    expect(decoded?.version).toBeLessThanOrEqual(15);
    const text = new TextDecoder().decode(new Uint8Array(decoded!.binaryData));
    expect(text).toContain('FN:نورة القحطاني');
    expect(text).toContain('X-PHONETIC-FIRST-NAME:Noura');
  });
});

describe("an owner's page is the owner's (issue 49)", () => {
  it.each(['/p/layla', '/p/qahwat-alnakheel/en', '/c/k7f2q9', '/c/nakheel1/ar'])(
    '%s carries none of the site’s navigation: no header, no footer of links, one discreet line at its foot',
    async (path) => {
      const d = await doc(path);
      expect(d.querySelectorAll('.site-header, .site-footer, nav[aria-label="Main"]')).toHaveLength(0);
      expect([...d.querySelectorAll('.owner-foot a')].map((a) => a.getAttribute('href'))).toHaveLength(1);
      expect(d.querySelectorAll('a[href="/login"]')).toHaveLength(0);
    },
  );
  it('the blog keeps the site’s header and footer', async () => {
    const d = await doc('/en/blog');
    expect(d.querySelectorAll('.site-header, .site-footer')).toHaveLength(2);
  });
});

describe('owners speak as themselves', () => {
  it.each([
    ['/p/qahwat-alnakheel/ar', 'تجدنا أيضًا على', 'اعرض رمزنا'],
    ['/p/qahwat-alnakheel/en', 'Find us on', 'Show our code'],
    ['/p/layla', 'تجدني أيضًا على', 'اعرض رمزي'],
    ['/p/sam-rivera', 'Find me on', 'Show my code'],
  ])('%s says %s and %s', async (path, elsewhere, code) => {
    const d = await doc(path);
    expect(d.querySelector('.socials-heading')?.textContent?.trim()).toBe(elsewhere);
    expect(d.querySelector('.codes summary')?.textContent?.trim()).toBe(code);
  });
});

describe('agents', () => {
  const tool = async (name: string, args: Record<string, unknown>) => {
    const res = await fetch(server.url + '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: BOTH, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    return ((await res.json()) as { result: { isError?: boolean; content: { text: string }[] } }).result;
  };

  it('get_profile and get_digital_card take lang; without it, the owner’s own language', async () => {
    expect(
      matter((await tool('get_profile', { page: 'qahwat-alnakheel', lang: 'en' })).content[0]!.text).data,
    ).toMatchObject({ lang: 'en', url: CAFE.en });
    expect(matter((await tool('get_profile', { page: 'qahwat-alnakheel' })).content[0]!.text).data.lang).toBe('ar');
    expect(
      matter((await tool('get_digital_card', { cardId: 'nakheel1', lang: 'en' })).content[0]!.text).data.title,
    ).toBe('Noura Al-Qahtani');
    const missing = await tool('get_profile', { page: 'layla', lang: 'en' });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toBe('The profile "layla" is not in en: it is in ar.');
  });

  it('read_page reads either address, and lists lang in the tools’ schemas', async () => {
    const read = await tool('read_page', { path: '/p/qahwat-alnakheel/en' });
    expect(matter(read.content[0]!.text).data.lang).toBe('en');
    const list = await fetch(server.url + '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: BOTH, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const tools = (
      (await list.json()) as { result: { tools: { name: string; inputSchema: { properties: object } }[] } }
    ).result.tools;
    for (const name of ['get_profile', 'get_digital_card'])
      expect(tools.find((t) => t.name === name)?.inputSchema.properties).toHaveProperty('lang.enum', ['ar', 'en']);
  });

  it('finds both versions in the sitemap and in OpenAPI', async () => {
    const openapi = (await (await get('/openapi.json')).json()) as { paths: Record<string, unknown> };
    for (const path of ['/p/{page}/{lang}', '/p/{page}/{lang}.md', '/c/{cardId}/{lang}', '/c/{cardId}/{lang}.md'])
      expect(openapi.paths, path).toHaveProperty([path]);
    const sitemap = await (await get('/sitemap.xml')).text();
    expect(sitemap).toContain(`<loc>${CAFE.en}</loc>`);
    expect(sitemap).toContain(`<loc>${base}/c/nakheel1/en</loc>`);
  });
});
