// Compressed answers (issue 21): the build's brotli and gzip copies for static files, live renders compressed once,
// Vary: Accept-Encoding on every negotiated answer, an ETag per coding, and nothing compressed that must not be.
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throughEdge } from '../helpers/edge.ts';
import { throughFront } from '../helpers/front.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** fetch decodes bodies by itself and always offers br and gzip: the bytes on the wire need a plain request. */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = (r: Raw) =>
  r.headers['content-encoding'] === 'br'
    ? brotliDecompressSync(r.body)
    : r.headers['content-encoding'] === 'gzip'
      ? gunzipSync(r.body)
      : r.body;
const varies = (r: Raw, name: string) =>
  String(r.headers.vary ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .includes(name.toLowerCase());

const pages = [
  ['homepage', '/'],
  ['article', '/en/blog/qr-or-nfc-business-card'],
  ['blog index twin', '/ar/blog.md'],
  ['OpenAPI', '/openapi.json'],
  ['profile (live)', '/p/layla'],
  ['card (live)', '/c/k7f2q9'],
  ['QR code (live)', '/c/k7f2q9/qr.svg'],
  ['sitemap (live)', '/sitemap.xml'],
] as const;

describe('content codings', () => {
  it.each(pages)(
    '%s (%s): brotli when offered, gzip when only gzip is, the same bytes decoded, Vary: Accept-Encoding',
    async (_name, path) => {
      const plain = await raw(path);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(varies(plain, 'Accept-Encoding')).toBe(true);
      const br = await raw(path, { 'accept-encoding': 'gzip, deflate, br, zstd' });
      expect(br.headers['content-encoding']).toBe('br');
      expect(varies(br, 'Accept-Encoding')).toBe(true);
      expect(decode(br).equals(plain.body)).toBe(true);
      expect(br.body.length).toBeLessThan(plain.body.length * 0.6);
      const gz = await raw(path, { 'accept-encoding': 'gzip' });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(decode(gz).equals(plain.body)).toBe(true);
      // Each coding its own ETag, and a 304 only for the coding that was asked for.
      expect(new Set([plain.headers.etag, br.headers.etag, gz.headers.etag]).size).toBe(3);
      expect((await raw(path, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) })).status).toBe(304);
      expect((await raw(path, { 'if-none-match': String(br.headers.etag) })).status).toBe(200);
    },
  );

  it('honours q-values: br;q=0 gets gzip, identity alone or everything refused gets the body as it is', async () => {
    expect((await raw('/', { 'accept-encoding': 'br;q=0, gzip' })).headers['content-encoding']).toBe('gzip');
    expect((await raw('/', { 'accept-encoding': 'identity' })).headers['content-encoding']).toBeUndefined();
    expect((await raw('/', { 'accept-encoding': 'br;q=0, gzip;q=0' })).headers['content-encoding']).toBeUndefined();
    // nginx's brotli_static and gzip_static look for each coding's own name and ignore `*`; the body as it is is what
    // `*` allows too. The sidecar reads `*` as any coding, and sends its best.
    expect((await raw('/', { 'accept-encoding': '*' })).headers['content-encoding']).toBe(
      throughFront || throughEdge ? undefined : 'br',
    );
    expect((await raw('/', { 'accept-encoding': 'x'.repeat(3000) })).status).toBe(200);
  });

  it('the Markdown twin of a live page is compressed on its own, with its own ETag', async () => {
    const html = await raw('/p/layla', { 'accept-encoding': 'br' });
    const md = await raw('/p/layla', { 'accept-encoding': 'br', accept: 'text/markdown' });
    expect(md.headers['content-encoding']).toBe('br');
    expect(decode(md).toString()).toMatch(/^---\ntitle:/);
    expect(md.headers.etag).not.toBe(html.headers.etag);
    expect(varies(md, 'Accept')).toBe(true);
    expect(varies(md, 'Accept-Encoding')).toBe(true);
  });

  it('a HEAD says what a GET would send', async () => {
    const head = await raw('/p/layla', { 'accept-encoding': 'br' }, 'HEAD');
    const get = await raw('/p/layla', { 'accept-encoding': 'br' });
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.headers.etag).toBe(get.headers.etag);
  });

  it('error pages are compressed and keep their status', async () => {
    const missing = await raw('/en/blog/missing', { 'accept-encoding': 'br' });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-encoding']).toBe('br');
    expect(decode(missing).toString()).toContain('<html');
  });
});

describe('what is never compressed', () => {
  it.each([
    ['/health', 'a tiny answer computed per request'],
    ['/images/67e6754fa860c936b0cb69876560f7c0-384.jpg', 'an image, compressed already'],
  ])('%s (%s)', async (path) => {
    const res = await raw(path, { 'accept-encoding': 'br, gzip' });
    expect(res.status).toBeLessThan(500);
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('a redirect and a 304 carry no compressed body', async () => {
    const alias = await raw('/layla', { 'accept-encoding': 'br' });
    expect(alias.status).toBe(302);
    expect(alias.headers['content-encoding']).toBeUndefined();
  });
});
