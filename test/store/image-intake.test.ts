// Owners' images taken in by the import (sidecar/store/image-intake.ts), through the writer every import takes, from
// real files beside an import file and from a real HTTP server on 127.0.0.1 that answers as hostile hosts do: slowly,
// hugely, in redirects, with bytes that are not the image they claim. Each refusal names the record, the field and the
// reason, and writes nothing.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWriter } from '../../sidecar/store/writer.ts';
import { IMAGE_LIMITS, type IntakeOptions } from '../../sidecar/store/image-intake.ts';
import { IMAGE_WIDTHS } from '../../src/lib/image-files.ts';
import { projectRoot } from '../helpers/env.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

const photo = readFileSync(join(projectRoot, 'scripts/demo-images/sam-rivera.jpg'));

/** A PNG whose header claims `width`×`height` pixels, in a few dozen bytes: a decompression bomb's shape. */
function bombPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

let server: Server;
let origin: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/photo.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
    if (path === '/missing.jpg') return res.writeHead(404).end();
    if (path.startsWith('/hop/')) {
      const n = Number(path.slice(5));
      return res.writeHead(302, { location: n > 0 ? `/hop/${n - 1}` : '/photo.jpg' }).end();
    }
    if (path === '/to-file') return res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    if (path === '/declared-huge.jpg')
      return res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(1 << 30) }).end();
    if (path === '/streamed-huge.jpg') {
      // No length given: the intake must stop reading at its limit, not when the sender stops sending.
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      let sent = 0;
      const pump = () => {
        while (sent < 64 << 20 && res.write(Buffer.alloc(64 << 10))) sent += 64 << 10;
        if (sent < 64 << 20 && !res.destroyed) res.once('drain', pump);
        else res.end();
      };
      return pump();
    }
    if (path === '/slow.jpg') {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      res.write(photo.subarray(0, 100));
      const timer = setTimeout(() => res.end(photo.subarray(100)), 5000);
      return res.on('close', () => clearTimeout(timer));
    }
    if (path === '/svg.png')
      return res
        .writeHead(200, { 'content-type': 'image/png' })
        .end('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    if (path === '/text.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end('not an image at all');
    if (path === '/bomb.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(bombPng(60000, 60000));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** An import file in a folder of its own, with the demo's images beside it. */
function importFolder(): { folder: string; file: string } {
  const folder = temporaryFolder('image-intake-');
  mkdirSync(join(folder, 'images'));
  writeFileSync(join(folder, 'images', 'sam.jpg'), photo);
  writeFileSync(
    join(folder, 'images', 'logo.png'),
    readFileSync(join(projectRoot, 'scripts/demo-images/northwind-studio.png')),
  );
  writeFileSync(
    join(folder, 'images', 'drawing.png'),
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><circle r="50"/></svg>',
  );
  writeFileSync(join(folder, 'secret.jpg'), photo);
  // A folder of images an owner sent may hold links and other files that are not files.
  mkdirSync(join(folder, 'sent', 'images'), { recursive: true });
  symlinkSync(join(folder, 'secret.jpg'), join(folder, 'sent', 'images', 'link.jpg'));
  execFileSync('mkfifo', [join(folder, 'sent', 'images', 'pipe.jpg')]);
  return { folder, file: join(folder, 'import.json') };
}

async function importInto(databasePath: string, json: unknown, images: IntakeOptions) {
  const writer = await openWriter({ databasePath });
  try {
    return await writer.importData(json, images);
  } finally {
    await writer.close();
  }
}

const profile = (slug: string, avatarUrl: string) => ({ slug, name: slug, lang: 'en', avatarUrl });

describe('images an import takes in', () => {
  it('takes a file named relative to the import file and an address, and keeps every size in two formats, metadata left behind', async () => {
    const { folder, file } = importFolder();
    const databasePath = join(folder, 'bio.db');
    const outcome = await importInto(
      databasePath,
      {
        profiles: [profile('from-file', 'images/sam.jpg'), profile('from-web', `${origin}/photo.jpg`)],
        cards: [{ cardId: 'with-photo', mode: 'page', name: 'Logo', photoUrl: 'images/logo.png' }],
      },
      { from: file, allowPrivateHosts: true },
    );
    expect(outcome).toMatchObject({ ok: true });
    const db = new Database(databasePath, { readonly: true });
    const rows = db.prepare('SELECT slug, avatar_url, avatar_image FROM profiles ORDER BY slug').all() as {
      slug: string;
      avatar_url: string;
      avatar_image: string;
    }[];
    // The same bytes, whether from a file or an address, are one image: one name, stored once.
    expect(rows[0]!.avatar_image).toMatch(/^[0-9a-f]{32}$/);
    expect(rows[0]!.avatar_image).toBe(rows[1]!.avatar_image);
    expect(rows.map((r) => r.avatar_url)).toEqual(['images/sam.jpg', `${origin}/photo.jpg`]);
    const files = db.prepare('SELECT name, bytes FROM images ORDER BY name').all() as { name: string; bytes: Buffer }[];
    expect(files).toHaveLength(2 * IMAGE_WIDTHS.length * 2);
    for (const { name, bytes } of files) {
      const meta = await sharp(bytes).metadata();
      const [, width, format] = /-(\d+)\.(\w+)$/.exec(name)!;
      expect(meta.format, name).toBe(format === 'jpg' ? 'jpeg' : 'webp');
      expect([meta.width, meta.height], name).toEqual([Number(width), Number(width)]);
      // The phone's make, model and the place the photo was taken are not carried into what visitors load.
      expect(meta.exif, name).toBeUndefined();
      expect(meta.xmp, name).toBeUndefined();
      expect(bytes.includes(Buffer.from('DemoPhone')), name).toBe(false);
    }
    db.close();
  });

  it.each<[string, () => string, IntakeOptions, string]>([
    [
      'a loopback host, unless the operator allows it',
      () => `${origin}/photo.jpg`,
      {},
      'private, loopback or link-local',
    ],
    ['a private address named by a literal', () => 'http://10.0.0.1/a.jpg', {}, 'private, loopback or link-local'],
    ['link-local (cloud metadata)', () => 'http://169.254.169.254/latest/meta-data', {}, 'link-local address'],
    [
      'link-local even when the operator allows private hosts (issue 46)',
      () => 'http://169.254.169.254/latest/meta-data',
      { allowPrivateHosts: true },
      'link-local address',
    ],
    [
      'IPv6 link-local even when the operator allows private hosts',
      () => 'http://[fe80::1]/a.jpg',
      { allowPrivateHosts: true },
      'link-local address',
    ],
    ['a 404', () => `${origin}/missing.jpg`, { allowPrivateHosts: true }, 'the server answered 404'],
    ['four redirects', () => `${origin}/hop/3`, { allowPrivateHosts: true }, 'redirects more than 3 times'],
    ['a redirect to a file: URL', () => `${origin}/to-file`, { allowPrivateHosts: true }, 'file: address'],
    [
      'a declared gigabyte',
      () => `${origin}/declared-huge.jpg`,
      { allowPrivateHosts: true },
      `more than the ${IMAGE_LIMITS.bytes} bytes`,
    ],
    [
      '64 MB streamed with no length',
      () => `${origin}/streamed-huge.jpg`,
      { allowPrivateHosts: true },
      `more than the ${IMAGE_LIMITS.bytes} bytes`,
    ],
    [
      'a host that trickles',
      () => `${origin}/slow.jpg`,
      { allowPrivateHosts: true, limits: { timeoutMs: 300 } },
      'did not arrive in 0.3 s',
    ],
    ['SVG sent as a PNG', () => `${origin}/svg.png`, { allowPrivateHosts: true }, 'its bytes are svg image'],
    ['text sent as a JPEG', () => `${origin}/text.jpg`, { allowPrivateHosts: true }, 'not an image in a format taken'],
    [
      'a 3.6-gigapixel PNG header (a decompression bomb)',
      () => `${origin}/bomb.png`,
      { allowPrivateHosts: true },
      '60000×60000 pixels',
    ],
    ['an SVG file beside the import', () => 'images/drawing.png', {}, 'its bytes are svg image'],
    ["a file outside the import file's folder", () => '../secret.jpg', {}, "outside the import file's folder"],
    ['a file that is not there', () => 'images/none.jpg', {}, 'there is no such file'],
    [
      "a link to a file outside the import file's folder",
      () => 'images/link.jpg',
      { from: 'sent/import.json' },
      "outside the import file's folder",
    ],
    [
      'a named pipe (no file: reading it would wait forever)',
      () => 'images/pipe.jpg',
      { from: 'sent/import.json' },
      'not a file',
    ],
  ])('refuses %s, naming the record and field, and writes nothing', async (_what, ref, options, reason) => {
    const { folder, file } = importFolder();
    const databasePath = join(folder, 'bio.db');
    expect(
      await importInto(databasePath, { profiles: [profile('before', 'images/sam.jpg')] }, { from: file }),
    ).toMatchObject({ ok: true });
    const outcome = await importInto(
      databasePath,
      { profiles: [{ slug: 'ok', name: 'OK', lang: 'en' }, profile('hostile', ref())] },
      { ...options, from: options.from ? join(folder, options.from) : file },
    );
    expect(outcome.ok).toBe(false);
    const errors = outcome.ok ? [] : outcome.errors;
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`profiles[1] (slug "hostile").avatarUrl ${JSON.stringify(ref())}: `);
    expect(errors[0]).toContain(reason);
    const db = new Database(databasePath, { readonly: true });
    expect(db.prepare('SELECT slug FROM profiles ORDER BY slug').all()).toEqual([{ slug: 'before' }]);
    expect(db.prepare('SELECT count(*) AS n FROM images').get()).toEqual({ n: 2 * IMAGE_WIDTHS.length });
    db.close();
  });

  it('takes AVIF, which libvips reads as HEIF (issue 46: every AVIF was refused)', async () => {
    const { folder, file } = importFolder();
    writeFileSync(join(folder, 'images', 'sam.avif'), await sharp(photo).avif({ quality: 60 }).toBuffer());
    const outcome = await importInto(
      join(folder, 'bio.db'),
      { profiles: [profile('avif', 'images/sam.avif')] },
      { from: file },
    );
    expect(outcome).toMatchObject({ ok: true });
  });

  it('refuses a relative reference in data that came from no file, and references that are no file name', async () => {
    const databasePath = join(temporaryFolder('image-intake-'), 'bio.db');
    const outcome = await importInto(databasePath, { profiles: [profile('a', 'images/a.jpg')] }, {});
    expect(outcome).toMatchObject({ ok: false, errors: [expect.stringContaining('this import has no file')] });
    for (const ref of [
      '/etc/passwd',
      '\\\\server\\share\\a.jpg',
      'a.jpg?x=1',
      'ftp://example.com/a.jpg',
      'javascript:alert(1)',
    ]) {
      const refused = await importInto(databasePath, { profiles: [profile('a', ref)] }, { from: '/tmp/x.json' });
      expect(refused.ok, ref).toBe(false);
      expect(refused.ok ? '' : refused.errors[0], ref).toContain('profiles[0] (slug "a").avatarUrl');
    }
  });
});
