// Negotiation: the sidecar's (negotiator) and the front's (deploy/negotiate.js, run by nginx's njs) must pick the same
// representation and language for any Accept and Accept-Language a client may send.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import negotiate from '../../deploy/negotiate.js';
import {
  NEGOTIATED_HEADER_CHARS,
  preferredAmong,
  preferredEncoding,
  preferredLang,
  prefersMarkdown,
} from '../../sidecar/negotiation.ts';
import { DEFAULT_LANG, LANGS } from '../../src/lib/surface.ts';

/** What nginx hands njs: the request's headers, its URI and the $site_langs the front's template sets. */
const njsRequest = (headers: Record<string, string>, uri = '/x') => ({
  headersIn: headers,
  uri,
  variables: {
    site_langs: [DEFAULT_LANG, ...LANGS.filter((l) => l !== DEFAULT_LANG)].join(' '),
    negotiated_chars: String(NEGOTIATED_HEADER_CHARS),
  },
});

const q = fc.oneof(
  fc.constant(''),
  fc.integer({ min: 0, max: 1000 }).map((n) => `;q=${(n / 1000).toString()}`),
  fc.constantFrom(';q=1.0', ';q=0', ';q=x', ';q=', ';level=1'),
);
const space = fc.constantFrom('', ' ', '  ');
const header = (values: string[]) =>
  fc
    .array(fc.tuple(fc.constantFrom(...values), q, space), { minLength: 1, maxLength: 6 })
    .map((entries) => entries.map(([v, p, s]) => `${s}${v}${p}`).join(','));

const accept = header([
  'text/html',
  'text/markdown',
  'text/*',
  '*/*',
  'application/json',
  'text/plain',
  'application/xhtml+xml',
  'application/xml',
  'TEXT/MARKDOWN',
  'image/*',
  'text',
  'text/markdown; charset=utf-8',
  '*/markdown',
  'text/html;level=1',
  '',
  '"text/markdown"',
]);
const acceptLanguage = header([
  'ar',
  'en',
  'en-US',
  'ar-SA',
  'AR',
  'En-gb',
  'fr',
  'de-CH',
  '*',
  'ar-',
  'zh-Hant-TW',
  '-en',
  'x-klingon',
  '',
  'en_US',
]);
const acceptEncoding = header(['gzip', 'br', 'identity', '*', 'deflate', 'GZIP', 'x-gzip', 'zstd', '']);

describe('the front and the sidecar negotiate alike', () => {
  it('Markdown or HTML, for random Accept headers', () => {
    fc.assert(
      fc.property(accept, (value) => {
        expect(negotiate.twin(njsRequest({ Accept: value }))).toBe(
          prefersMarkdown({ accept: value }) ? '.md' : '.html',
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('the language of an error page, for random Accept-Language headers', () => {
    fc.assert(
      fc.property(acceptLanguage, (value) => {
        expect(negotiate.lang(njsRequest({ 'Accept-Language': value }))).toBe(
          preferredLang({ 'accept-language': value }),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it("an owner's language at the printed address is the same whether the front passed the header on or not (issue 48)", () => {
    // The front hands the sidecars one language (negotiate.js siteLang) or none; the sidecar then picks among the
    // owner's languages, their own when the visitor names neither.
    const answer = (header: string | undefined, owner: ('ar' | 'en')[]) => preferredAmong(header, owner) ?? owner[0];
    fc.assert(
      fc.property(acceptLanguage, fc.constantFrom<('ar' | 'en')[]>(['ar', 'en'], ['en', 'ar']), (value, owner) => {
        const passed = negotiate.siteLang(njsRequest({ 'Accept-Language': value })) || undefined;
        expect(answer(passed, owner), value).toBe(answer(value, owner));
      }),
      { numRuns: 2000 },
    );
  });

  it('a large document: asked of the sidecar as the client asks when it takes a coding, in gzip when not (issue 46)', () => {
    // The front passes the header on when negotiate.js takesCoding says so, and asks for gzip when not, which nginx
    // then decompresses for the client (by its own reading of the header: a client that takes gzip gets it as is).
    fc.assert(
      fc.property(acceptEncoding, (value) => {
        const passed = negotiate.takesCoding(njsRequest({ 'Accept-Encoding': value })) === '1';
        // A client the sidecar would send a coding to is always passed on as it is: brotli stays brotli.
        if (preferredEncoding({ 'accept-encoding': value })) expect(passed, value).toBe(true);
      }),
      { numRuns: 2000 },
    );
    for (const [value, passed] of [
      [undefined, ''],
      ['identity', ''],
      ['gzip;q=0', ''],
      ['deflate', ''],
      ['gzip', '1'],
      ['br;q=0.5, identity', '1'],
      ['*', '1'],
    ] as const)
      expect(negotiate.takesCoding(njsRequest(value === undefined ? {} : { 'Accept-Encoding': value })), value).toBe(
        passed,
      );
  });

  it('headers past NEGOTIATED_HEADER_CHARS: both read the same first entries, and what follows is not read (issue 60)', () => {
    // A header of many entries, from 200 characters to 16 KiB: the two decide alike, and as they decide the header
    // cut after its last whole entry within the bound.
    const long = (entries: fc.Arbitrary<string>) =>
      fc
        .tuple(entries, fc.integer({ min: 1, max: 400 }))
        .map(([value, times]) => Array.from({ length: times }, () => value).join(','));
    const cut = (value: string) =>
      value.length <= NEGOTIATED_HEADER_CHARS
        ? value
        : value.slice(0, Math.max(0, value.lastIndexOf(',', NEGOTIATED_HEADER_CHARS)));
    fc.assert(
      fc.property(long(acceptLanguage), long(accept), (language, types) => {
        expect(negotiate.lang(njsRequest({ 'Accept-Language': language }))).toBe(
          preferredLang({ 'accept-language': language }),
        );
        expect(preferredLang({ 'accept-language': language })).toBe(
          preferredLang({ 'accept-language': cut(language) }),
        );
        expect(negotiate.twin(njsRequest({ Accept: types }))).toBe(
          prefersMarkdown({ accept: types }) ? '.md' : '.html',
        );
      }),
      { numRuns: 300 },
    );
    // A language named only past the bound is not read: the default, not Arabic.
    const padded = `${'fr;q=0.1,'.repeat(1500)}ar`;
    expect(preferredLang({ 'accept-language': padded })).toBe(DEFAULT_LANG);
    expect(negotiate.lang(njsRequest({ 'Accept-Language': padded }))).toBe(DEFAULT_LANG);
  });

  it('a language in the path wins over the header, and only then is Accept-Language a Vary', () => {
    for (const lang of LANGS) {
      const r = njsRequest({ 'Accept-Language': 'fr' }, `/${lang}/blog/missing`);
      expect(negotiate.lang(r)).toBe(lang);
      expect(negotiate.errorVary(r)).toBe('Accept');
    }
    expect(negotiate.errorVary(njsRequest({}, '/p/missing'))).toBe('Accept, Accept-Language');
  });
});

describe('the sidecar negotiation', () => {
  it.each([
    ['text/markdown', true],
    ['text/html', false],
    ['*/*', false],
    ['text/markdown;q=0.9, text/html;q=0.8', true],
    ['text/html;q=0.5, text/markdown', true],
    ['application/json', false],
    [';;;q=x,,', false],
  ])('Accept: %s → Markdown %s', (value, markdown) => {
    expect(prefersMarkdown({ accept: value })).toBe(markdown);
  });

  it('no Accept-Language, a tie or no match: the default language', () => {
    expect(preferredLang({})).toBe(DEFAULT_LANG);
    expect(preferredLang({ 'accept-language': '*' })).toBe(DEFAULT_LANG);
    expect(preferredLang({ 'accept-language': 'fr, de' })).toBe(DEFAULT_LANG);
    expect(preferredLang({ 'accept-language': 'ar-SA, en;q=0.5' })).toBe('ar');
  });
});
