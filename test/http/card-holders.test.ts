// For people holding a card (issue 14): every QR code decodes to what it promises (the SVG drawn to pixels by resvg,
// read by jsQR), the vCards read back with an independent parser (ical.js), Arabic names intact, and social
// networks shown by their names with icons.
import { createDocument } from '@mixmark-io/domino';
import { Resvg } from '@resvg/resvg-js';
import ICAL from 'ical.js';
import sharp from 'sharp';
import jsQR from 'jsqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE } from '../../src/lib/surface.ts';
import { createDatabase, demoData } from '../helpers/database.ts';
import { testConfig } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const base = testConfig.baseUrl;
const arabicCard = {
  cardId: 'noura-1',
  mode: 'page',
  lang: 'ar',
  name: 'نورة بنت عبدالله القحطاني',
  title: 'مديرة المشاريع',
  organization: 'شركة الواحة',
  phones: [
    { number: '+966 50 111 2222', type: 'cell' },
    { number: '+966 11 333 4444', type: 'work' },
  ],
  emails: [
    { address: 'noura@example.com', type: 'work' },
    { address: 'noura.home@example.com', type: 'home' },
  ],
  website: 'https://example.com/noura',
  // A file beside the demo data (the import resolves it against its file): served from our origin, inline in the vCard.
  photoUrl: 'demo-images/layla.jpg',
  address: 'الرياض',
  profile: 'layla',
};
const inactiveCard = { cardId: 'gone-1', mode: 'page', name: 'Gone', active: false };
/** As much as the import allows on a card: five phones, five e-mails, long title, organisation and address. */
const fullCard = {
  cardId: 'full-card',
  mode: 'page',
  lang: 'ar',
  name: 'عبدالرحمن بن محمد بن عبدالعزيز آل سعود الشمري القحطاني',
  title: 'المدير التنفيذي للعمليات والتحول الرقمي وتطوير الأعمال في منطقة الشرق الأوسط وشمال أفريقيا',
  organization: 'مجموعة الواحة القابضة للاستثمار والتطوير العقاري والتجاري والصناعي المحدودة',
  phones: ['+966 50 111 2222', '+966 50 333 4444', '+966 11 555 6666', '+966 11 777 8888', '+966 12 999 0000'].map(
    (number, i) => ({ number, type: i < 2 ? 'cell' : 'work' }),
  ),
  emails: [
    'abdulrahman.alqahtani@example.com',
    'ceo.office@example.com',
    'operations@example.com',
    'digital@example.com',
    'home.mail@example.com',
  ],
  website: 'https://example.com/leadership/abdulrahman-alqahtani',
  address: 'برج الواحة، الطابق الثاني والعشرون، طريق الملك فهد، حي العليا، الرياض ١٢٢١٤، المملكة العربية السعودية',
};
/** Every field at the longest the import allows (issue 27: its compact vCard is too large for any QR code, 500). */
const largestCard = {
  cardId: 'largest-card',
  mode: 'page',
  lang: 'ar',
  name: 'ك'.repeat(80),
  title: 'م'.repeat(100),
  organization: 'ن'.repeat(100),
  phones: Array.from({ length: 5 }, (_, i) => ({ number: `+966 50 000 000${i}`, type: 'work' })),
  emails: Array.from({ length: 5 }, (_, i) => ({
    address: `${'e'.repeat(60)}${i}@${'d'.repeat(60)}.example.com`,
    type: 'work',
  })),
  website: `https://example.com/${'w'.repeat(2000)}`,
  address: 'ع'.repeat(300),
};
/** Version of a QR code in our SVG: its width in modules, less the quiet zone of four on each side (ISO/IEC 18004). */
const qrVersion = (svg: string) => (Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]) - 8 - 17) / 4;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    databasePath: await createDatabase({
      ...demoData,
      cards: [...(demoData.cards as unknown[]), arabicCard, inactiveCard, fullCard, largestCard],
    }),
  });
});
afterAll(() => server.close());

const get = (path: string) => fetch(server.url + path, { redirect: 'manual' });

/** The text a QR code in SVG holds: drawn to pixels at a phone camera's scale, then decoded. */
function decodeQr(svg: string): string | undefined {
  const image = new Resvg(svg, { fitTo: { mode: 'width', value: 600 }, background: '#ffffff' }).render();
  const decoded = jsQR(new Uint8ClampedArray(image.pixels), image.width, image.height);
  return decoded ? new TextDecoder().decode(new Uint8Array(decoded.binaryData)) : undefined;
}

function parseVcard(text: string) {
  const card = new ICAL.Component(ICAL.parse(text) as unknown[]);
  const values = (name: string) =>
    card.getAllProperties(name).map((p) => ({
      value: String(p.getFirstValue()),
      types: ([] as string[]).concat((p.getParameter('type') as string | string[] | undefined) ?? []),
    }));
  return { card, values, first: (name: string) => card.getFirstPropertyValue(name) };
}

describe('QR codes', () => {
  it.each([
    ['/c/k7f2q9/qr.svg', `${base}/c/k7f2q9`],
    ['/p/layla/qr.svg', `${base}/p/layla`],
    // A redirect-mode card: our URL, which redirects, never the owner's target.
    ['/c/r8x1/qr.svg', `${base}/c/r8x1`],
  ])('%s is an SVG that decodes to %s', async (path, expected) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('cache-control')).toBe(CACHE.live);
    expect(res.headers.get('etag')).toBeTruthy();
    const svg = await res.text();
    expect(svg.startsWith('<svg')).toBe(true);
    expect(decodeQr(svg)).toBe(expected);
  });

  it('has error correction M or better and a quiet zone of four modules', async () => {
    const svg = await (await get('/c/k7f2q9/qr.svg')).text();
    const image = new Resvg(svg, { fitTo: { mode: 'width', value: 600 } }).render();
    const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
    const module = image.width / size;
    // The outer four modules on every side are white.
    const px = (x: number, y: number) => image.pixels[(Math.floor(y) * image.width + Math.floor(x)) * 4] ?? 0;
    for (let i = 0; i < image.width; i += 7) {
      for (const edge of [module * 3.5, image.width - module * 3.5]) {
        expect(px(i, edge)).toBeGreaterThan(200);
        expect(px(edge, i)).toBeGreaterThan(200);
      }
    }
    // The error correction level, read from the format information beside the top-left finder (ISO/IEC 18004
    // §7.9): bits 14–9 along row 8, then (8,7), (8,8), (7,8), and bits 5–0 up column 8; masked with 0x5412.
    const dark = (row: number, col: number) => px((col + 4 + 0.5) * module, (row + 4 + 0.5) * module) < 128;
    const cells: [number, number][] = [
      [8, 0],
      [8, 1],
      [8, 2],
      [8, 3],
      [8, 4],
      [8, 5],
      [8, 7],
      [8, 8],
      [7, 8],
      [5, 8],
      [4, 8],
      [3, 8],
      [2, 8],
      [1, 8],
      [0, 8],
    ];
    const format = cells.reduce((bits, [r, c]) => (bits << 1) | (dark(r, c) ? 1 : 0), 0) ^ 0x5412;
    const level = ({ 0b01: 'L', 0b00: 'M', 0b11: 'Q', 0b10: 'H' } as Record<number, string>)[format >> 13];
    expect(['M', 'Q', 'H']).toContain(level);
    expect(jsQR(new Uint8ClampedArray(image.pixels), image.width, image.height)).not.toBeNull();
  });

  it('answers 404 for an unknown or inactive card or profile, and no contact code for a redirect-mode card', async () => {
    for (const path of [
      '/c/nope-00/qr.svg',
      '/c/gone-1/qr.svg',
      '/p/nobody/qr.svg',
      '/p/coming-soon/qr.svg',
      '/c/r8x1/contact-qr.svg',
      '/c/gone-1/contact-qr.svg',
    ]) {
      expect((await get(path)).status, path).toBe(404);
    }
  });

  it('the offline contact code holds the vCard itself, Arabic name intact, and reads back with an independent parser', async () => {
    const svg = await (await get('/c/noura-1/contact-qr.svg')).text();
    const text = decodeQr(svg);
    expect(text).toBeDefined();
    const { values, first } = parseVcard(text!);
    expect(first('fn')).toBe(arabicCard.name);
    expect(first('org')).toBe('شركة الواحة');
    expect(first('title')).toBe('مديرة المشاريع');
    expect(values('tel').map((t) => t.value)).toEqual(['+966 50 111 2222', '+966 11 333 4444']);
    expect(values('email').map((e) => e.value)).toEqual(['noura@example.com', 'noura.home@example.com']);
    expect(values('url').map((u) => u.value)).toEqual(['https://example.com/noura']);
    // Compact: nothing a contact does not need offline.
    for (const absent of ['photo', 'adr', 'source', 'rev']) expect(values(absent), absent).toEqual([]);
  });
});

describe('the offline contact code stays scannable', () => {
  it('is at most version 15 for a card as full as the import allows, and then holds the essentials and the card link', async () => {
    const svg = await (await get('/c/full-card/contact-qr.svg')).text();
    expect(qrVersion(svg)).toBeLessThanOrEqual(15);
    const text = decodeQr(svg);
    expect(text).toBeDefined();
    const { values, first } = parseVcard(text!);
    expect(first('fn')).toBe(fullCard.name);
    expect(values('tel').map((t) => t.value)).toEqual([fullCard.phones[0]!.number]);
    expect(values('email').map((e) => e.value)).toEqual([fullCard.emails[0]]);
    expect(values('url').map((u) => u.value)).toEqual([`${base}/c/full-card`]);
  });

  it('a card with every field at its longest still has a page, a vCard and a code of the essentials', async () => {
    expect((await get('/c/largest-card')).status).toBe(200);
    expect((await get('/c/largest-card.vcf')).status).toBe(200);
    const svg = await (await get('/c/largest-card/contact-qr.svg')).text();
    expect(qrVersion(svg)).toBeLessThanOrEqual(15);
    const { first, values } = parseVcard(decodeQr(svg)!);
    expect(first('fn')).toBe(largestCard.name);
    expect(values('url').map((u) => u.value)).toEqual([`${base}/c/largest-card`]);
  });

  it('the page says when the code holds a short version, and not otherwise', async () => {
    const short = createDocument(await (await get('/c/full-card')).text());
    expect(short.querySelector('.codes')?.textContent).toContain('نسخة مختصرة');
    for (const path of ['/c/noura-1', '/c/k7f2q9']) {
      const full = createDocument(await (await get(path)).text());
      expect(full.querySelector('.codes')?.textContent, path).not.toMatch(/نسخة مختصرة|short version/);
    }
    // The demo card's and the Arabic card's codes hold their whole compact vCard, as before.
    expect(qrVersion(await (await get('/c/k7f2q9/contact-qr.svg')).text())).toBeLessThanOrEqual(15);
  });
});

describe('the vCard', () => {
  it('holds every phone and e-mail with its type, the photo, the website and the profile, read back by ical.js', async () => {
    const res = await get('/c/noura-1.vcf');
    expect(res.status).toBe(200);
    const { card, values, first } = parseVcard(await res.text());
    expect(first('version')).toBe('3.0');
    expect(first('fn')).toBe(arabicCard.name);
    expect(values('tel')).toEqual([
      { value: '+966 50 111 2222', types: ['CELL', 'VOICE'] },
      { value: '+966 11 333 4444', types: ['WORK', 'VOICE'] },
    ]);
    expect(values('email')).toEqual([
      { value: 'noura@example.com', types: ['INTERNET', 'WORK'] },
      { value: 'noura.home@example.com', types: ['INTERNET', 'HOME'] },
    ]);
    // And the mobile's WhatsApp chat, labelled as iOS reads a URL's label (issue 62).
    expect(values('url').map((u) => u.value)).toEqual([
      'https://example.com/noura',
      `${base}/p/layla`,
      'https://wa.me/966501112222',
    ]);
    expect(values('x-ablabel').map((u) => u.value)).toEqual(['WhatsApp']);
    // The photo itself, as iOS and Android contacts apps read it (neither fetches a URI): a small JPEG, metadata-free.
    const photo = card.getFirstProperty('photo');
    expect(photo?.getParameter('encoding')).toBe('b');
    expect(String(photo?.getParameter('type')).toUpperCase()).toBe('JPEG');
    const jpeg = Buffer.from(String(photo?.getFirstValue()), 'base64');
    const meta = await sharp(jpeg).metadata();
    expect([meta.format, meta.width, meta.height, meta.exif]).toEqual(['jpeg', 192, 192, undefined]);
    expect(jpeg.length).toBeLessThan(20_000);
    expect(first('source')).toBe(`${base}/c/noura-1`);
  });

  it('gives each phone the kind the import said (issue 62): a work line and a landline, neither a guessed mobile', async () => {
    const { values } = parseVcard(await (await get('/c/n0rth1.vcf')).text());
    expect(values('tel').map((t) => t.types)).toEqual([['WORK', 'VOICE'], ['VOICE']]);
    expect(values('email').map((t) => t.types)).toEqual([['INTERNET', 'WORK']]);
  });
});

describe('the card and profile pages', () => {
  it('show their QR codes without JavaScript, each with a download link, and a share button that waits for the script', async () => {
    const doc = createDocument(await (await get('/c/noura-1')).text(), true);
    const details = doc.querySelector('details.codes');
    expect(details?.querySelector('summary')?.textContent).toBe('اعرض رمزي');
    const images = Array.from(details?.querySelectorAll('img') ?? []);
    expect(images.map((img) => img.getAttribute('src'))).toEqual(['/c/noura-1/qr.svg', '/c/noura-1/contact-qr.svg']);
    for (const img of images) expect(img.getAttribute('alt')).toBeTruthy();
    expect(Array.from(details?.querySelectorAll('a[download]') ?? []).map((a) => a.getAttribute('href'))).toEqual([
      '/c/noura-1/qr.svg',
      '/c/noura-1/contact-qr.svg',
    ]);
    const share = doc.querySelector('button[data-share-url]');
    expect(share?.hasAttribute('hidden')).toBe(true);
    expect(share?.getAttribute('data-share-url')).toBe(`${base}/c/noura-1`);
    const profile = createDocument(await (await get('/p/layla')).text(), true);
    expect(Array.from(profile.querySelectorAll('details.codes img')).map((img) => img.getAttribute('src'))).toEqual([
      '/p/layla/qr.svg',
    ]);
  });

  it('label phones and e-mails with their type, in the page language', async () => {
    const doc = createDocument(await (await get('/c/noura-1')).text(), true);
    expect(Array.from(doc.querySelectorAll('.contact-type')).map((s) => s.textContent)).toEqual([
      'جوال',
      'العمل',
      'العمل',
      'شخصي',
    ]);
  });

  it('show social networks by their names with an icon, and a generic icon for an unknown network', async () => {
    const doc = createDocument(await (await get('/p/sam-rivera')).text(), true);
    const links = Array.from(doc.querySelectorAll('.socials a'));
    expect(links.map((a) => a.textContent?.trim())).toEqual(['YouTube', 'Mastodon']);
    for (const a of links) {
      const svg = a.querySelector('svg');
      expect(svg?.getAttribute('aria-hidden')).toBe('true');
      expect(svg?.querySelector('path')?.getAttribute('d')?.length).toBeGreaterThan(20);
    }
    const other = createDocument(await (await get('/p/northwind-studio')).text(), true);
    // LinkedIn has no mark in the icon set: the generic link icon, and its proper name.
    expect(other.querySelector('.socials a')?.textContent?.trim()).toBe('LinkedIn');
  });

  it('leave the codes and the share button out of the Markdown twin', async () => {
    const md = await (await fetch(server.url + '/c/noura-1', { headers: { accept: 'text/markdown' } })).text();
    expect(md).not.toContain('qr.svg');
    expect(md).toContain('نورة بنت عبدالله القحطاني');
  });

  it("name the card's logo and photo apart in the Markdown twin, in its language (issue 62)", async () => {
    const md = await (await fetch(server.url + '/c/n0rth1', { headers: { accept: 'text/markdown' } })).text();
    expect(md).toMatch(/!\[Logo of Northwind Studio\]\(http:\/\/localhost:8080\/images\/[^)]+\)/);
    expect(md).toMatch(/!\[Photo of Dana Ortiz\]\(http:\/\/localhost:8080\/images\/[^)]+\)/);
    expect(md).not.toContain('![](');
    // In the page itself both stay decorative: the name and the organisation are written beside them.
    const html = await (await get('/c/n0rth1')).text();
    expect(html.match(/<img[^>]*class="(card-logo|avatar)"[^>]*>/g)?.every((img) => img.includes('alt=""'))).toBe(true);
  });
});
