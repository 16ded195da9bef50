// Live pages from a real SQLite file through a real server: routes, statuses, headers, negotiation, safety.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import matter from 'gray-matter';
import sharp from 'sharp';
import { createDocument } from '@mixmark-io/domino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, demoData } from '../helpers/database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const base = 'http://localhost:8080';
const MARKDOWN = 'text/markdown; charset=utf-8';
const HTML = 'text/html; charset=utf-8';

// The demo data plus hostile and edge-case records that pass the import's rules.
const databasePath = await createDatabase({
  ...demoData,
  profiles: [
    ...(demoData.profiles as object[]),
    {
      slug: 'xss-test',
      name: '<script>alert("name")</script>',
      bio: '<img src=x onerror=alert(1)> & "quotes"',
      lang: 'en',
      plan: 'paid',
      links: [{ title: '<b>bold</b>', url: 'https://example.com/?q=<script>' }],
    },
  ],
});

// Data written around the import's validation (as a buggy writer might): the page must still never link it.
const raw = new Database(databasePath);
raw
  .prepare(
    "INSERT INTO links (profile_id, position, title, url, enabled) SELECT id, 99, 'Sneaky', 'javascript:alert(1)', 1 FROM profiles WHERE slug = 'sam-rivera'",
  )
  .run();
raw.close();
const fileHash = () => createHash('sha256').update(readFileSync(databasePath)).digest('hex');
const hashBefore = fileHash();

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ databasePath });
});
afterAll(() => server.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(server.url + path, { headers, redirect: 'manual' });
const page = async (path: string) => createDocument(await (await get(path)).text(), true);

describe('/p/{page}', () => {
  it('renders an Arabic profile right to left, with the name isolated and links in order, pinned first', async () => {
    const res = await get('/p/layla');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(HTML);
    expect(res.headers.get('vary')).toBe('Accept, Accept-Encoding');
    expect(res.headers.get('cache-control')).toBe('public, no-cache');
    const doc = createDocument(await res.text(), true);
    expect(doc.documentElement.getAttribute('lang')).toBe('ar');
    expect(doc.documentElement.getAttribute('dir')).toBe('rtl');
    expect(doc.querySelector('h1 bdi')?.textContent).toBe('ليلى الأحمد');
    const links = Array.from(doc.querySelectorAll('.profile-links a')).map((a) => [
      a.textContent,
      a.getAttribute('href'),
    ]);
    expect(links).toEqual([
      ['اطلبي هوية لعلامتك (Brand Kit)', 'https://example.com/layla/brand-kit'],
      ['معرض أعمالي', 'https://example.com/layla/portfolio'],
      ['احجز جلسة استشارة', 'https://example.com/layla/book'],
      ['ورشة الخط العربي للمصممين', 'https://example.com/layla/workshop'],
      ['راسليني', 'mailto:layla@example.com'],
    ]);
    for (const a of Array.from(doc.querySelectorAll('.profile-links a'))) expect(a.querySelector('bdi')).not.toBeNull();
    expect(Array.from(doc.querySelectorAll('a[rel~="me"]')).map((a) => a.getAttribute('href'))).toEqual([
      'https://instagram.com/layla.designs',
      'https://www.behance.net/layla-designs',
    ]);
    expect(doc.querySelector('link[rel="canonical"]')?.getAttribute('href')).toBe(`${base}/p/layla`);
    expect(doc.querySelector('meta[property="og:title"]')?.getAttribute('content')).toBe('ليلى الأحمد');
  });

  it('describes the profile with JSON-LD ProfilePage: Person or Organization, with sameAs', async () => {
    // The graph (src/lib/structured-data.ts): the page, and its owner by @id.
    const ld = (doc: Document) =>
      (
        JSON.parse(doc.querySelector('script[type="application/ld+json"]')?.textContent ?? '{}') as {
          '@graph': Record<string, unknown>[];
        }
      )['@graph'];
    const [profilePage, person] = ld(await page('/p/layla'));
    expect(profilePage).toMatchObject({ '@type': 'ProfilePage', mainEntity: { '@id': `${base}/p/layla#owner` } });
    expect(person).toMatchObject({ '@type': 'Person', '@id': `${base}/p/layla#owner`, name: 'ليلى الأحمد' });
    expect(person!.sameAs).toEqual(['https://instagram.com/layla.designs', 'https://www.behance.net/layla-designs']);
    expect(ld(await page('/p/northwind-studio'))[1]!['@type']).toBe('Organization');
  });

  it('answers Markdown with the four-key front matter, links absolute', async () => {
    const res = await get('/p/sam-rivera', { accept: 'text/markdown' });
    expect(res.headers.get('content-type')).toBe(MARKDOWN);
    expect(res.headers.get('vary')).toBe('Accept');
    const { data, content } = matter(await res.text());
    expect(data).toEqual({
      title: 'Sam Rivera',
      description: expect.stringContaining('Small Rooms'),
      url: `${base}/p/sam-rivera`,
      lang: 'en',
    });
    expect(content).toContain('[Listen to the latest episode](https://example.com/small-rooms/latest)');
    expect(content).toContain('(mailto:sam@example.com)');
    expect(content).not.toMatch(/<script|<style|<form/);
  });

  it('answers 404 for unknown, unpublished or malformed slugs, as HTML or Markdown, and 400 for traversal', async () => {
    expect((await get('/p/..%2F..%2Fetc%2Fpasswd')).status).toBe(400);
    for (const path of ['/p/nobody', '/p/coming-soon', '/p/Bad%20Slug']) {
      const html = await get(path);
      expect(html.status, path).toBe(404);
      expect(html.headers.get('content-type')).toBe(HTML);
      const md = await get(path, { accept: 'text/markdown' });
      expect(md.status).toBe(404);
      expect(md.headers.get('content-type')).toBe(MARKDOWN);
      expect(Object.keys(matter(await md.text()).data)).toEqual(['title', 'description', 'url', 'lang']);
    }
  });

  it('hides disabled links and links outside their time window', async () => {
    const html = await (await get('/p/layla')).text();
    expect(html).not.toContain('summer-sale');
    expect(html).not.toContain('/layla/draft');
    expect(html).toContain('/layla/workshop');
  });

  it('renders user content inert: markup escaped, unsafe schemes never in an href', async () => {
    const html = await (await get('/p/xss-test')).text();
    const doc = createDocument(html, true);
    // The only scripts are our own files (WebMCP, the share button, the in-app notice's module, fingerprinted by the
    // build) and the JSON-LD data block; none came from user text.
    expect(
      Array.from(doc.querySelectorAll('script'))
        .map((s) => s.getAttribute('src') ?? s.getAttribute('type'))
        .map((src) =>
          src?.replace(/^\/_astro\/InAppNotice\.astro_astro_type_script_index_0_lang\.[\w-]+\.js$/, 'in-app'),
        ),
    ).toEqual(['application/ld+json', '/global-scripts/webmcp.js', '/global-scripts/share.js', 'in-app']);
    expect(doc.querySelectorAll('img[onerror], b, [onerror]').length).toBe(0);
    expect(doc.querySelector('h1')?.textContent).toBe('<script>alert("name")</script>');
    expect(html).toContain('&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;');
    // Stored and emitted normalised (percent-encoded), never as typed.
    expect(doc.querySelector('.profile-links a')?.getAttribute('href')).toBe('https://example.com/?q=%3Cscript%3E');
    const sam = await (await get('/p/sam-rivera')).text();
    expect(sam).not.toContain('javascript:');
    expect(sam).not.toContain('Sneaky');
  });

  it('answers If-None-Match with 304', async () => {
    const etag = (await get('/p/layla')).headers.get('etag') ?? '';
    expect(etag).toMatch(/^"/);
    expect((await get('/p/layla', { 'if-none-match': etag })).status).toBe(304);
    const mdTag = (await get('/p/layla', { accept: 'text/markdown' })).headers.get('etag') ?? '';
    expect(mdTag).not.toBe(etag);
    expect((await get('/p/layla', { accept: 'text/markdown', 'if-none-match': mdTag })).status).toBe(304);
  });
});

describe('/c/{cardId}', () => {
  it('shows contact details with tap-to-call, e-mail, website and a Save contact link, numbers isolated LTR', async () => {
    const res = await get('/c/k7f2q9');
    expect(res.status).toBe(200);
    const doc = createDocument(await res.text(), true);
    expect(doc.documentElement.getAttribute('dir')).toBe('rtl');
    const tel = doc.querySelector('a[href^="tel:"]');
    expect(tel?.getAttribute('href')).toBe('tel:+966500000000');
    expect(tel?.querySelector('bdi[dir="ltr"]')?.textContent).toBe('+966500000000');
    expect(doc.querySelector('a[href="mailto:layla@example.com"] bdi[dir="ltr"]')).not.toBeNull();
    expect(doc.querySelector('a[href="https://example.com/layla"]')).not.toBeNull();
    expect(doc.querySelector('a[href="/c/k7f2q9.vcf"]')?.textContent).toBe('حفظ جهة الاتصال');
    expect(doc.querySelector('a[href="/p/layla"]')).not.toBeNull();
  });

  it('normalises spaced phone numbers into tel: URIs', async () => {
    const doc = await page('/c/n0rth1');
    expect(Array.from(doc.querySelectorAll('a[href^="tel:"]')).map((a) => a.getAttribute('href'))).toEqual([
      'tel:+97140000000',
      'tel:+442000000000',
    ]);
  });

  it('offers a WhatsApp chat for each mobile written with its country code, and no other (issue 49)', async () => {
    const layla = await page('/c/k7f2q9');
    expect(Array.from(layla.querySelectorAll('a[href^="https://wa.me/"]')).map((a) => a.getAttribute('href'))).toEqual([
      'https://wa.me/966500000000',
    ]);
    // Northwind's are a work line and a landline, and the café manager's a work line (issue 62: kinds as said, never
    // guessed): no chat offered for them.
    expect((await page('/c/n0rth1')).querySelectorAll('a[href^="https://wa.me/"]')).toHaveLength(0);
    expect((await page('/c/nakheel1')).querySelectorAll('a[href^="https://wa.me/"]')).toHaveLength(0);
  });

  it("shows the organisation's logo from this site, and names it in the structured data (issue 49)", async () => {
    const doc = await page('/c/n0rth1');
    const src = doc.querySelector('img.card-logo')?.getAttribute('src') ?? '';
    expect(src).toMatch(/^\/images\/[0-9a-f]{32}-96\.jpg$/);
    const res = await get(src);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    await res.arrayBuffer();
    const graph = JSON.parse(doc.querySelector('script[type="application/ld+json"]')?.textContent ?? '{}') as {
      '@graph': { '@type': string; worksFor?: { logo?: string } }[];
    };
    expect(graph['@graph'].find((n) => n['@type'] === 'Person')?.worksFor?.logo).toMatch(
      /^http:\/\/localhost:8080\/images\/[0-9a-f]{32}-384\.jpg$/,
    );
    // A card without one shows none.
    expect((await page('/c/k7f2q9')).querySelectorAll('img.card-logo')).toHaveLength(0);
  });

  it("shows the holder's social links, named and iconed, and names them in the structured data (issue 49)", async () => {
    const doc = await page('/c/n0rth1');
    const link = doc.querySelector('.socials a[rel="me noopener"]');
    expect(link?.getAttribute('href')).toBe('https://www.linkedin.com/in/dana-ortiz-example');
    expect(link?.textContent?.trim()).toBe('LinkedIn');
    const graph = JSON.parse(doc.querySelector('script[type="application/ld+json"]')?.textContent ?? '{}') as {
      '@graph': { '@type': string; sameAs?: string[] }[];
    };
    expect(graph['@graph'].find((n) => n['@type'] === 'Person')?.sameAs).toContain(
      'https://www.linkedin.com/in/dana-ortiz-example',
    );
  });

  it('redirects a redirect-mode card with 302 to its absolute URL, cached briefly', async () => {
    for (const accept of ['text/html', 'text/markdown']) {
      const res = await get('/c/r8x1', { accept });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('https://example.com/');
      expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    }
  });

  it('answers 404 for unknown cards, and a vCard only for page-mode cards', async () => {
    expect((await get('/c/zzzzzz')).status).toBe(404);
    expect((await get('/c/r8x1.vcf')).status).toBe(404);
    expect((await get('/c/x')).status).toBe(404);
    const md = await get('/c/nothing-here', { accept: 'text/markdown' });
    expect(md.status).toBe(404);
    expect(md.headers.get('content-type')).toBe(MARKDOWN);
  });

  it('negotiates Markdown', async () => {
    const res = await get('/c/k7f2q9', { accept: 'text/markdown' });
    const { data, content } = matter(await res.text());
    expect(data).toMatchObject({ title: 'ليلى الأحمد', url: `${base}/c/k7f2q9`, lang: 'ar' });
    expect(content).toContain('[+966500000000](tel:+966500000000)');
    expect(content).toContain(`(${base}/c/k7f2q9.vcf)`);
    // Its two actions are two links an agent can tell apart, not one run of text (issue 49).
    expect(content).not.toMatch(/\]\([^)]*\)\[/);
    expect(content).toMatch(new RegExp(`\\(${base}/c/k7f2q9\\.vcf\\)\\s+\\[`));
  });
});

// Issue 39: a shared profile or card showed no picture in a chat's or a network's link preview.
describe('link previews of profiles and cards', () => {
  /** A PNG's width and height, from its IHDR chunk. */
  const sizeOfPng = (bytes: Buffer) => {
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  };
  /** The Open Graph and Twitter tags of a page, by property or name. */
  const previewTags = async (path: string) => {
    const doc = createDocument(await (await fetch(server.url + path)).text(), true);
    const tag = (key: string) =>
      doc.querySelector(`meta[property="${key}"], meta[name="${key}"]`)?.getAttribute('content') ?? undefined;
    return Object.fromEntries(
      [
        'og:image',
        'og:image:type',
        'og:image:width',
        'og:image:height',
        'og:image:alt',
        'twitter:card',
        'twitter:image',
      ].map((key) => [key, tag(key)]),
    );
  };

  it.each([
    ['/p/layla', '/p/layla/og.png', 'ليلى الأحمد'],
    ['/p/sam-rivera', '/p/sam-rivera/og.png', 'Sam Rivera'],
    ['/c/k7f2q9', '/c/k7f2q9/og.png', 'ليلى الأحمد'],
  ])(
    '%s names its picture, 1200×630 PNG with its alt text, and the picture is ours to fetch',
    async (page, picture, name) => {
      const tags = await previewTags(page);
      const image = new URL(tags['og:image'] ?? '');
      expect(`${image.origin}${image.pathname}`).toBe(base + picture);
      expect(image.searchParams.get('v')).toMatch(/^[\w-]{12}$/);
      expect(tags).toMatchObject({
        'og:image:type': 'image/png',
        'og:image:width': '1200',
        'og:image:height': '630',
        'twitter:card': 'summary_large_image',
        'twitter:image': tags['og:image'],
      });
      expect(tags['og:image:alt']).toContain(name);
      const res = await fetch(server.url + picture + image.search);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('cache-control')).toBe('public, no-cache');
      expect(sizeOfPng(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 1200, height: 630 });
    },
  );

  it('a redirect-mode card, an unknown card or profile has none (404)', async () => {
    for (const path of ['/c/r8x1/og.png', '/c/nope99/og.png', '/p/nobody-here/og.png'])
      expect((await fetch(server.url + path)).status, path).toBe(404);
  });
});

describe("owners' images, from this site", () => {
  /** The `<picture>` of a page's avatar or photo: its WebP and JPEG candidates, and the `<img>`'s attributes. */
  const pictureOf = async (path: string) => {
    const doc = await page(path);
    const img = doc.querySelector('picture img.avatar');
    const candidates = (srcset: string | null | undefined) =>
      (srcset ?? '').split(', ').map((c) => {
        const [url, width] = c.split(' ');
        return { url: url!, width: Number(width?.slice(0, -1)) };
      });
    return {
      webp: candidates(img?.parentElement?.querySelector('source[type="image/webp"]')?.getAttribute('srcset')),
      jpeg: candidates(img?.getAttribute('srcset')),
      img: Object.fromEntries(['src', 'width', 'height', 'sizes', 'alt'].map((a) => [a, img?.getAttribute(a)])),
      jsonLd: doc.querySelector('script[type="application/ld+json"]')?.textContent ?? '',
    };
  };

  it.each(['/p/layla', '/p/qahwat-alnakheel', '/p/sam-rivera', '/c/k7f2q9', '/c/n0rth1'])(
    '%s shows its image from /images/ in WebP and JPEG at 96, 192 and 384 pixels, each kept a year',
    async (path) => {
      const { webp, jpeg, img, jsonLd } = await pictureOf(path);
      expect(img).toMatchObject({ width: '96', height: '96', sizes: '96px', alt: '' });
      expect(img.src).toBe(jpeg[1]?.url);
      expect(webp.map((c) => c.width)).toEqual([96, 192, 384]);
      expect(jpeg.map((c) => c.width)).toEqual([96, 192, 384]);
      for (const [candidates, type, format] of [
        [webp, 'image/webp', 'webp'],
        [jpeg, 'image/jpeg', 'jpeg'],
      ] as const)
        for (const { url, width } of candidates) {
          expect(url).toMatch(/^\/images\/[0-9a-f]{32}-\d+\.(webp|jpg)$/);
          const res = await get(url);
          expect(res.status, url).toBe(200);
          expect(res.headers.get('content-type'), url).toBe(type);
          expect(res.headers.get('cache-control'), url).toBe('public, max-age=31536000, immutable');
          const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
          expect([meta.format, meta.width, meta.height], url).toEqual([format, width, width]);
        }
      // Structured data names the same image, absolute, on this site.
      expect(jsonLd).toContain(`"image":"${base}${jpeg[2]?.url}"`);
    },
  );

  it('a profile with no image shows its initial; the Markdown twin links the image on this site', async () => {
    expect((await page('/p/northwind-studio')).querySelector('picture img.avatar')).toBeTruthy();
    const plain = await page('/p/xss-test');
    expect(plain.querySelector('picture')).toBeFalsy();
    expect(plain.querySelector('.avatar-initial')?.textContent?.trim()).toBe('<');
    const md = await (await get('/p/sam-rivera.md')).text();
    expect(md).toMatch(new RegExp(`!\\[[^\\]]*\\]\\(${base}/images/[0-9a-f]{32}-192\\.jpg\\)`));
  });

  it('the Content-Security-Policy lets pages load images from this site only', async () => {
    const csp = (await get('/p/layla')).headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/img-src 'self' data:(;|$)/);
  });

  it('answers 404 for an image name that names nothing, or is not one the pages write', async () => {
    for (const path of [
      '/images/00000000000000000000000000000000-192.webp',
      '/images/67e6754fa860c936b0cb69876560f7c0-100.webp',
      '/images/67e6754fa860c936b0cb69876560f7c0-192.png',
      '/images/67E6754FA860C936B0CB69876560F7C0-192.webp',
      '/images/layla.jpg',
    ])
      expect((await get(path)).status, path).toBe(404);
  });

  it("the link-preview picture shows the owner's image at the end of the line: right in English, left in Arabic", async () => {
    /** The colour at (x, y) of a PNG. */
    const pixel = async (path: string, x: number, y: number) => {
      const png = Buffer.from(await (await get(path)).arrayBuffer());
      const { data } = await sharp(png)
        .extract({ left: x, top: y, width: 1, height: 1 })
        .raw()
        .toBuffer({ resolveWithObject: true });
      return [...data.subarray(0, 3)];
    };
    // The picture's ground: the site's teal, or the owner's accent when their theme has one (Sam's).
    const ground = (path: string) => pixel(path, 4, 4);
    expect(await ground('/p/xss-test/og.png')).toEqual([10, 107, 93]);
    // The picture's circle: 280 pixels, 80 from the edge, centred above the foot's band.
    expect(await pixel('/p/sam-rivera/og.png', 1200 - 80 - 140, 267)).not.toEqual(await ground('/p/sam-rivera/og.png'));
    expect(await pixel('/p/sam-rivera/og.png', 80 + 140, 267)).toEqual(await ground('/p/sam-rivera/og.png'));
    expect(await pixel('/p/layla/og.png', 80 + 140, 267)).not.toEqual(await ground('/p/layla/og.png'));
    expect(await pixel('/p/xss-test/og.png', 1200 - 80 - 140, 267)).toEqual(await ground('/p/xss-test/og.png'));
  });
});

describe('/c/{cardId}.vcf', () => {
  it('is a vCard 3.0 in UTF-8 with CRLF, folded at 75 octets, escaped, with N and FN and no empty field', async () => {
    const res = await get('/c/k7f2q9.vcf');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/vcard; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename=k7f2q9.vcf; filename*=UTF-8''${encodeURIComponent('ليلى الأحمد.vcf')}`,
    );
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    const physical = text.slice(0, -2).split('\r\n');
    for (const line of physical) expect(Buffer.byteLength(line), line).toBeLessThanOrEqual(75);
    // A folded line continues with one space; unfolding joins it back.
    expect(physical.some((l) => l.startsWith(' '))).toBe(true);
    const lines = text.replace(/\r\n /g, '').slice(0, -2).split('\r\n');
    expect(lines[0]).toBe('BEGIN:VCARD');
    expect(lines[1]).toBe('VERSION:3.0');
    expect(lines.at(-1)).toBe('END:VCARD');
    expect(lines).toContain('N:الأحمد;ليلى;;;');
    expect(lines).toContain('FN:ليلى الأحمد');
    expect(lines).toContain('ORG:استوديو ليلى للتصميم');
    expect(lines).toContain('TITLE:مصممة هوية بصرية');
    expect(lines).toContain('TEL;TYPE=CELL,VOICE:+966500000000');
    expect(lines).toContain('EMAIL;TYPE=INTERNET,WORK:layla@example.com');
    expect(lines).toContain('URL:http://localhost:8080/p/layla');
    expect(lines).toContain('URL:https://example.com/layla');
    expect(lines).toContain(
      'ADR;TYPE=WORK:;;طريق الملك فهد\\، حي العليا\\، الرياض 12211\\، المملكة العربية السعودية;;;;'.replace(
        /\\،/g,
        '،',
      ),
    );
    for (const line of lines) expect(line, line).not.toMatch(/^[A-Z-]+(;[^:]*)?:$/);
  });

  it('escapes commas and semicolons in values and gives an ASCII file name for Latin names', async () => {
    const res = await get('/c/n0rth1.vcf');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename=dana-ortiz\.vcf; filename\*=UTF-8''Dana%20Ortiz\.vcf$/,
    );
    const lines = (await res.text()).replace(/\r\n /g, '').split('\r\n');
    expect(lines).toContain('ADR;TYPE=WORK:;;Unit 4\\, Alserkal Avenue\\, Dubai;;;;');
    expect(lines).toContain('N:Ortiz;Dana;;;');
    expect(lines.filter((l) => l.startsWith('TEL'))).toHaveLength(2);
  });
});

describe('aliases', () => {
  it('redirects an alias of a paid-plan profile to its absolute /p/ URL', async () => {
    const res = await get('/layla');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${base}/p/layla`);
  });

  it('answers 404 for an alias whose owner is on the free plan, an unknown alias, and reserved paths', async () => {
    for (const path of ['/nakheel', '/no-such-alias', '/login', '/p', '/health-check-not', '/about']) {
      expect((await get(path)).status, path).toBe(404);
    }
  });
});

describe('/blog', () => {
  const cases: [string | undefined, string][] = [
    ['ar-SA,ar;q=0.9,en;q=0.5', '/ar/blog'],
    ['en-GB,en;q=0.9', '/en/blog'],
    ['fr-FR,fr;q=0.9', '/en/blog'],
    ['fr, ar;q=0.3', '/ar/blog'],
    ['en;q=0.2, ar;q=0.8', '/ar/blog'],
    [undefined, '/en/blog'],
  ];
  it.each(cases)('Accept-Language %s → %s', async (acceptLanguage, target) => {
    const res = await get('/blog', acceptLanguage ? { 'accept-language': acceptLanguage } : {});
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(base + target);
    expect(res.headers.get('vary')).toBe('Accept-Language');
  });
});

describe('security headers', () => {
  it('are on live pages, redirects and vCards', async () => {
    for (const path of ['/p/layla', '/c/r8x1', '/layla', '/c/k7f2q9.vcf', '/health']) {
      const res = await get(path);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
    }
  });
});

describe('the server', () => {
  it('never wrote to the database file', async () => {
    await Promise.all(['/p/layla', '/c/k7f2q9', '/health', '/sitemap.xml'].map((p) => get(p)));
    expect(fileHash()).toBe(hashBefore);
  });
});
