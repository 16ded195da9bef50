// The schema.org graph (issue 28): every page kind's structured data valid by a structured-data validator against the
// current schema.org vocabulary (test/helpers/schema-org.ts), and one graph across pages: stable @ids, so that a
// profile's owner and the card that names them are one node, an article names its translation, articles and topics
// carry breadcrumbs, and the site says how to search it. Owner strings never break out of the JSON.
import { createDocument } from '@mixmark-io/domino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, demoData } from '../helpers/database.ts';
import { structuredData } from '../helpers/schema-org.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const base = 'http://localhost:8080';
const HOSTILE = `</script><script>alert(1)</script>"quoted" \u202Eevil`;
let server: TestServer;
beforeAll(async () => {
  const data = demoData as { profiles: unknown[] };
  server = await startTestServer({
    databasePath: await createDatabase({
      ...demoData,
      profiles: [
        ...data.profiles,
        { slug: 'hostile-ld', name: 'Hostile', bio: HOSTILE.replace('\u202E', ''), lang: 'en' },
      ],
    }),
  });
});
afterAll(() => server.close());

const page = async (path: string) => structuredData(await (await fetch(server.url + path)).text());
const nodes = (jsonld: Record<string, Record<string, unknown>[]>, type: string) => jsonld[type] ?? [];

describe('structured data on every page kind', () => {
  it.each([
    '/',
    '/ar',
    '/p/layla',
    '/p/northwind-studio',
    '/c/k7f2q9',
    '/c/n0rth1',
    '/en/blog',
    '/ar/blog',
    '/en/blog/qr-or-nfc-business-card',
    '/ar/blog/bitaqat-qr-am-nfc',
    '/ar/blog/topics/link-in-bio',
    '/en/blog/search',
    '/ar/blog/search',
  ])('%s: valid schema.org, no issue at all', async (path) => {
    const { issues, jsonld } = await page(path);
    expect(Object.keys(jsonld).length, path).toBeGreaterThan(0);
    expect(issues, path).toEqual([]);
  });
});

describe('one graph', () => {
  it("a profile is a ProfilePage about its owner; the card that names a person's profile describes the same node", async () => {
    const profile = (await page('/p/layla')).jsonld;
    expect(nodes(profile, 'ProfilePage')[0]).toMatchObject({
      '@id': `${base}/p/layla#page`,
      mainEntity: { '@id': `${base}/p/layla#owner` },
    });
    expect(nodes(profile, 'Person')[0]).toMatchObject({ '@id': `${base}/p/layla#owner`, name: 'ليلى الأحمد' });
    const card = (await page('/c/k7f2q9')).jsonld;
    expect(nodes(card, 'ProfilePage')[0]).toMatchObject({ mainEntity: { '@id': `${base}/p/layla#owner` } });
    const holder = nodes(card, 'Person')[0]!;
    expect(holder['@id']).toBe(`${base}/p/layla#owner`);
    expect(holder.contactPoint).toEqual(
      expect.arrayContaining([expect.objectContaining({ '@type': 'ContactPoint', telephone: expect.any(String) })]),
    );
  });

  it("the holder of a card that names an organization's profile works for that organization's node", async () => {
    const org = (await page('/p/northwind-studio')).jsonld;
    expect(nodes(org, 'Organization').map((n) => n['@id'])).toContain(`${base}/p/northwind-studio#owner`);
    const holder = nodes((await page('/c/n0rth1')).jsonld, 'Person')[0]!;
    expect(holder['@id']).toBe(`${base}/c/n0rth1#holder`);
    expect(holder.worksFor).toMatchObject({ '@id': `${base}/p/northwind-studio#owner`, '@type': 'Organization' });
  });

  it('an article and its translation name each other; both are by the site, under breadcrumbs', async () => {
    const en = (await page('/en/blog/qr-or-nfc-business-card')).jsonld;
    const ar = (await page('/ar/blog/bitaqat-qr-am-nfc')).jsonld;
    const enPost = nodes(en, 'BlogPosting')[0]!;
    const arPost = nodes(ar, 'BlogPosting')[0]!;
    const pair = [
      enPost.workTranslation ?? enPost.translationOfWork,
      arPost.workTranslation ?? arPost.translationOfWork,
    ].flat() as { '@id': string }[];
    expect(pair.map((n) => n['@id']).sort()).toEqual([
      `${base}/ar/blog/bitaqat-qr-am-nfc#article`,
      `${base}/en/blog/qr-or-nfc-business-card#article`,
    ]);
    // One names its translation, the other its original.
    expect(['workTranslation' in enPost, 'workTranslation' in arPost].filter(Boolean)).toHaveLength(1);
    for (const post of [enPost, arPost]) {
      expect(post.author).toEqual({ '@id': `${base}/#organization` });
      expect(typeof post.inLanguage).toBe('string');
    }
    const crumbs = nodes(ar, 'BreadcrumbList')[0]!.itemListElement as { item: string }[];
    expect(crumbs.map((c) => c.item)).toEqual([`${base}/ar`, `${base}/ar/blog`, `${base}/ar/blog/bitaqat-qr-am-nfc`]);
    const topic = nodes((await page('/ar/blog/topics/link-in-bio')).jsonld, 'BreadcrumbList')[0]!.itemListElement as {
      item: string;
    }[];
    expect(topic.map((c) => c.item)).toEqual([
      `${base}/ar`,
      `${base}/ar/blog`,
      `${base}/ar/blog/topics`,
      `${base}/ar/blog/topics/link-in-bio`,
    ]);
  });

  it('the site says how to search it: a SearchAction per language that opens the search page with ?q=', async () => {
    for (const path of ['/', '/en/blog/search']) {
      const site = nodes((await page(path)).jsonld, 'WebSite')[0]!;
      expect(site['@id']).toBe(`${base}/#website`);
      const targets = (site.potentialAction as { target: { urlTemplate: string } }[]).map((a) => a.target.urlTemplate);
      expect(targets.sort()).toEqual([
        `${base}/ar/blog/search?q={search_term_string}`,
        `${base}/en/blog/search?q={search_term_string}`,
      ]);
      // The template opens the page a person would land on.
      const res = await fetch(
        server.url + new URL(targets[0]!.replace('{search_term_string}', 'NFC')).pathname + '?q=NFC',
      );
      expect(res.status).toBe(200);
    }
  });

  it('owner text stays data: a bio holding </script>, quotes and markup parses back as the same text', async () => {
    const html = await (await fetch(server.url + '/p/hostile-ld')).text();
    // One inline script, the JSON-LD, and nothing in it can close it.
    const inline = Array.from(createDocument(html, true).querySelectorAll('script:not([src])'));
    expect(inline.map((s) => s.getAttribute('type'))).toEqual(['application/ld+json']);
    expect(inline[0]!.textContent).not.toContain('</');
    const owner = nodes((await structuredData(html)).jsonld, 'Person')[0]!;
    expect(owner.description).toBe(HOSTILE.replace('\u202E', ''));
  });
});
