// The pure parts the HTTP suites reach only through sockets: vCard folding and escaping, the live cache, and the
// judgement of request paths.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeAsset } from '../../sidecar/asset.ts';
import { StaticSite } from '../../sidecar/services/static-site.ts';
import { CACHE } from '../../src/lib/surface.ts';
import { LiveCache } from '../../sidecar/live-cache.ts';
import { entityTag, purgeTags } from '../../sidecar/services/entities.ts';
import { networkIconPath } from '../../src/lib/social-icons.ts';
import { networkName } from '../../src/lib/social-networks.ts';
import { checkedPath } from '../../sidecar/request-path.ts';
import { cardToVcard, escapeText, foldLine, vcardFileName } from '../../sidecar/vcard.ts';
import type { Card } from '../../src/lib/live-content.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

const card: Card = {
  cardId: 'k7f2q9',
  mode: 'page',
  redirectUrl: null,
  lang: 'ar',
  name: 'ليلى الأحمد',
  jobTitle: 'مصممة; هوية, بصرية',
  organization: null,
  phones: [
    { number: '+966 50 000 0000', type: 'cell' },
    { number: '+966 11 000 0000', type: 'work' },
  ],
  emails: [{ address: 'layla@example.com', type: 'work' }],
  website: 'https://example.com/\nTEL:+19005550000',
  address: 'Line one\nLine two',
  photo: null,
  profileSlug: 'layla',
  profileKind: 'person',
  profileDomain: null,
  updatedAt: '2026-11-01T00:00:00Z',
  translations: {},
  place: null,
  theme: null,
  aiUse: null,
  socials: [],
  logo: null,
};

describe('the static site in memory', () => {
  it('keeps fingerprinted assets for a year, pages five minutes, and a page with its twin', () => {
    const root = temporaryFolder('static-site-');
    mkdirSync(join(root, '_astro'));
    mkdirSync(join(root, 'en'));
    writeFileSync(join(root, '_astro', 'picture.Ab12Cd34.webp'), Buffer.from([0x52, 0x49, 0x46, 0x46]));
    writeFileSync(join(root, 'en', 'x.html'), '<!doctype html><title>x</title>');
    writeFileSync(join(root, 'en', 'x.md'), '---\ntitle: x\n---\n');
    const site = new StaticSite(root);
    expect(site.files.get('/_astro/picture.Ab12Cd34.webp')?.cacheControl).toBe(CACHE.immutable);
    expect(site.files.get('/_astro/picture.Ab12Cd34.webp')?.type).toBe('image/webp');
    expect(site.pages.get('/en/x')?.html.cacheControl).toBe(CACHE.page);
    expect(site.pages.get('/en/x')?.markdown.body.toString()).toContain('title: x');
  });
});

describe('what a live asset offers compressed', () => {
  it('text over 1 KiB, once; never images, fonts or tiny bodies', () => {
    const page = makeAsset(Buffer.from('<p>hello</p>'.repeat(200)), 'text/html; charset=utf-8', CACHE.live);
    expect(page.compressible).toBe(true);
    const br = page.encoded('br');
    expect(br?.etag).toBe(page.etag.replace(/"$/, '-br"'));
    expect(page.encoded('br')).toBe(br);
    for (const [type, bytes] of [
      ['image/png', 5000],
      ['image/webp', 5000],
      ['font/woff2', 5000],
      ['text/vcard; charset=utf-8', 300],
    ] as const) {
      const asset = makeAsset(Buffer.alloc(bytes, 1), type, CACHE.live);
      expect(asset.compressible, type).toBe(false);
      expect(asset.encoded('gzip'), type).toBeUndefined();
    }
  });
});

describe('vCard', () => {
  it('escapes backslash, comma, semicolon and line breaks in text values', () => {
    expect(escapeText('a\\b;c,d\r\ne\nf')).toBe('a\\\\b\\;c\\,d\\ne\\nf');
  });

  it('folds at 75 octets without splitting a UTF-8 character', () => {
    const line = `FN:${'ليلى '.repeat(30)}`;
    const folded = foldLine(line).split('\r\n');
    expect(folded.length).toBeGreaterThan(1);
    for (const part of folded) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(75);
    expect(folded.map((p, i) => (i === 0 ? p : p.slice(1))).join('')).toBe(line);
    expect(folded.slice(1).every((p) => p.startsWith(' '))).toBe(true);
  });

  it('writes one property per line, with URIs normalised and no owner string able to add a property', () => {
    const vcard = cardToVcard(card, { card: 'https://bio.example/c/k7f2q9', profile: 'https://bio.example/p/layla' });
    const lines = vcard.split('\r\n').filter((l) => l !== '');
    expect(vcard.endsWith('\r\n')).toBe(true);
    expect(lines[0]).toBe('BEGIN:VCARD');
    expect(lines.at(-1)).toBe('END:VCARD');
    expect(lines).toContain('TITLE:مصممة\\; هوية\\, بصرية');
    expect(vcard, 'no photo, no PHOTO property (and never an address to fetch)').not.toContain('PHOTO');
    expect(lines.filter((l) => l.startsWith('URL'))).toEqual(['URL:https://bio.example/p/layla']);
    expect(vcard).not.toContain('19005550000');
    expect(lines).toContain('ADR;TYPE=WORK:;;Line one\\nLine two;;;;');
    expect(lines).toContain('N:الأحمد;ليلى;;;');
    expect(lines).toContain('TEL;TYPE=CELL,VOICE:+966 50 000 0000');
    expect(lines).toContain('TEL;TYPE=WORK,VOICE:+966 11 000 0000');
    expect(lines).toContain('EMAIL;TYPE=INTERNET,WORK:layla@example.com');
    expect(lines).toContain('URL:https://bio.example/p/layla');
    expect(lines).toContain('SOURCE:https://bio.example/c/k7f2q9');
  });

  it('carries the photo inline as base64 JPEG, folded like every line, so contacts apps show a face', () => {
    const photo = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256));
    const vcard = cardToVcard(
      card,
      { card: 'https://bio.example/c/k7f2q9', profile: 'https://bio.example/p/layla' },
      { photo },
    );
    const physical = vcard.split('\r\n');
    for (const line of physical) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    const unfolded = vcard.replace(/\r\n /g, '').split('\r\n');
    const property = unfolded.find((l) => l.startsWith('PHOTO'));
    expect(property?.slice(0, property.indexOf(':'))).toBe('PHOTO;ENCODING=b;TYPE=JPEG');
    expect(Buffer.from(property!.slice(property!.indexOf(':') + 1), 'base64').equals(photo)).toBe(true);
    // The offline contact code's compact vCard never carries it: it would not fit a QR code.
    expect(cardToVcard(card, { card: 'https://bio.example/c/k7f2q9' }, { compact: true, photo })).not.toContain(
      'PHOTO',
    );
  });

  it('keeps the card whole (issue 62): WhatsApp and socials as labelled URLs, the other language, each kind as said', () => {
    const whole: Card = {
      ...card,
      lang: 'en',
      name: 'Dana Ortiz',
      jobTitle: 'Product designer',
      organization: 'Northwind',
      phones: [
        { number: '+971 50 000 0000', type: 'cell' },
        { number: '011 456 7890', type: 'landline' },
        { number: '+44 20 0000 0000', type: 'phone' },
      ],
      socials: [
        { network: 'linkedin', url: 'https://www.linkedin.com/in/dana' },
        { network: 'behance', url: 'https://www.behance.net/dana' },
        { network: 'x', url: 'javascript:alert(1)' },
      ],
      translations: { ar: { name: 'دانا أورتيز', jobTitle: 'مصممة منتجات', organization: 'نورثويند' } },
    };
    const lines = cardToVcard(whole, { card: 'https://bio.example/c/n0rth1' }).replace(/\r\n /g, '').split('\r\n');
    expect(lines.filter((l) => l.startsWith('item'))).toEqual([
      'item1.URL:https://wa.me/971500000000',
      'item1.X-ABLabel:WhatsApp',
      'item2.URL:https://www.linkedin.com/in/dana',
      'item2.X-ABLabel:LinkedIn',
      'item3.URL:https://www.behance.net/dana',
      'item3.X-ABLabel:Behance',
    ]);
    // A landline is no mobile, and a number whose kind was not said is given none.
    expect(lines.filter((l) => l.startsWith('TEL'))).toEqual([
      'TEL;TYPE=CELL,VOICE:+971 50 000 0000',
      'TEL;TYPE=VOICE:011 456 7890',
      'TEL;TYPE=VOICE:+44 20 0000 0000',
    ]);
    expect(lines).toContain('TITLE:Product designer');
    expect(lines).toContain('NOTE:مصممة منتجات · نورثويند');
    // The contact code stays small: no socials, no note.
    const compact = cardToVcard(whole, { card: 'https://bio.example/c/n0rth1' }, { compact: true });
    expect(compact).not.toMatch(/item1|NOTE/);
  });

  it('names the file in ASCII, falling back to the card id', () => {
    expect(vcardFileName({ ...card, name: 'Dana Ortiz' })).toBe('dana-ortiz.vcf');
    expect(vcardFileName(card)).toBe('k7f2q9.vcf');
  });
});

describe('entity tags', () => {
  it('a change names one entity; keys no page can have are never purged (nor reach a header)', () => {
    expect(entityTag({ kind: 'profile', key: 'layla' })).toBe('profile:layla');
    expect(
      purgeTags([
        { kind: 'profile', key: 'layla' },
        { kind: 'card', key: 'k7f2q9' },
        { kind: 'profile', key: 'layla' },
        { kind: 'alias', key: 'bad key\r\nx-evil: 1' },
        { kind: 'card', key: 'ok_ID-1' },
      ]),
    ).toEqual(['profile:layla', 'card:k7f2q9', 'card:ok_ID-1']);
  });

  it('the live cache evicts every entry built from an entity, and only those', () => {
    const cache = new LiveCache<string>(10);
    cache.set('p:layla', 'page', Infinity, 'profile:layla');
    cache.set('pq:layla', 'code', Infinity, 'profile:layla');
    cache.set('p:sam', 'page', Infinity, 'profile:sam');
    cache.deleteTagged('profile:layla');
    expect(cache.get('p:layla', 0)).toBeUndefined();
    expect(cache.get('pq:layla', 0)).toBeUndefined();
    expect(cache.get('p:sam', 0)).toBe('page');
    // An entry pushed out by the bound leaves the index too: a later purge of its entity finds nothing to remove.
    const small = new LiveCache<string>(1);
    small.set('a', '1', Infinity, 'alias:a');
    small.set('b', '2', Infinity, 'alias:b');
    small.deleteTagged('alias:a');
    expect(small.get('b', 0)).toBe('2');
  });
});

describe('the live cache', () => {
  it('keeps an entry until it is deleted or the cache is cleared', () => {
    const cache = new LiveCache<string>(10);
    cache.set('p:a', 'A');
    cache.set('p:b', 'B');
    expect(cache.get('p:a', 0)).toBe('A');
    cache.delete('p:a');
    expect(cache.get('p:a', 0)).toBeUndefined();
    expect(cache.get('p:b', 0)).toBe('B');
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('expires an entry when its content would change by the clock', () => {
    const cache = new LiveCache<string>(10);
    cache.set('p:a', 'A', 1000);
    expect(cache.get('p:a', 999)).toBe('A');
    expect(cache.get('p:a', 1000)).toBeUndefined();
  });

  it('is bounded: the least recently used entry goes first, and size 0 keeps nothing', () => {
    const cache = new LiveCache<string>(2);
    cache.set('a', 'A');
    cache.set('b', 'B');
    cache.get('a', 0);
    cache.set('c', 'C');
    expect(cache.get('b', 0)).toBeUndefined();
    expect(cache.get('a', 0)).toBe('A');
    const none = new LiveCache<string>(0);
    none.set('a', 'A');
    expect(none.get('a', 0)).toBeUndefined();
  });

  it('is bounded in bytes too: a large entry pushes out the oldest, one larger than the bound is not kept (issue 46)', () => {
    const cache = new LiveCache<string>(100, 1000);
    cache.set('a', 'A', Infinity, undefined, 400);
    cache.set('b', 'B', Infinity, undefined, 400);
    cache.set('c', 'C', Infinity, undefined, 400);
    expect(cache.get('a', 0)).toBeUndefined();
    expect([cache.get('b', 0), cache.get('c', 0), cache.bytes]).toEqual(['B', 'C', 800]);
    cache.set('huge', 'H', Infinity, undefined, 1001);
    expect([cache.get('huge', 0), cache.bytes]).toEqual([undefined, 800]);
    cache.delete('b');
    expect(cache.bytes).toBe(400);
  });
});

describe('request paths', () => {
  it.each([
    ['/p/layla', '/p/layla'],
    ['/%D8%B9%D8%B1%D8%A8%D9%8A', '/عربي'],
    // An encoded slash stays one: no identifier holds a slash, so it names nothing (and is no trailing slash).
    ['/a%2Fb', '/a%2Fb'],
    ['/p/layla%2f', '/p/layla%2F'],
  ])('%s is the path %s', (raw, path) => {
    expect(checkedPath(raw)).toBe(path);
  });

  it.each([
    '/..',
    '/a/../b',
    '/%2e%2e/x',
    '/./x',
    '/a%5cb',
    '/a\\b',
    '/%00',
    '/%E0%A4%A',
    '/%ZZ',
    '/p/..%2F..%2Fetc',
    '/a/.%2fb',
  ])('%s names no page', (raw) => {
    expect(checkedPath(raw)).toBeUndefined();
  });
});

describe("a business's map and review pages as socials (issue 49)", () => {
  it.each([
    ['googlemaps', 'Google Maps'],
    ['openstreetmap', 'OpenStreetMap'],
    ['tripadvisor', 'Tripadvisor'],
    ['yelp', 'Yelp'],
  ])('%s is named %s, with its own icon', (id, name) => {
    expect(networkName(id)).toBe(name);
    expect(networkIconPath(id)).not.toBe(networkIconPath('no-such-network'));
  });
});
