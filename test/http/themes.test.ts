// An owner's theme (issue 49), as a reader and a scanner get it in every shape: the page carries the owner's
// stylesheet and its answer's Content-Security-Policy allows exactly that stylesheet by its hash (through the front and
// the edge too, which pass the sidecar's policy on), a page without a theme carries none, the QR codes are drawn in the
// owner's accent darkened until they scan, the link preview in the owner's accent, and the Markdown twin carries no
// style at all. The demo data's themes: the café (a light ground, a brown accent), Sam (a gradient), Northwind (dark).
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const get = (path: string) => fetch(server.url + path);

/** The page's inline style elements' texts. */
const stylesOf = (html: string) => [...html.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1]!);
const sourceOf = (css: string) => `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
const styleSrc = (res: Response) =>
  (/(?:^|;)\s*style-src ([^;]*)/.exec(res.headers.get('content-security-policy') ?? '')?.[1] ?? '').split(' ');

/** WCAG 2.2's contrast ratio of two `#rrggbb` colours, written here apart from the code under test. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

describe("an owner's theme", () => {
  it.each(['/p/sam-rivera', '/p/qahwat-alnakheel/en', '/c/nakheel1/ar', '/p/northwind-studio', '/c/k7f2q9'])(
    '%s carries its stylesheet, and its policy allows every inline style it has by hash',
    async (path) => {
      const res = await get(path);
      expect(res.status).toBe(200);
      const styles = stylesOf(await res.text());
      const theme = styles.filter((css) => css.startsWith('html:root{'));
      expect(theme).toHaveLength(1);
      // Nothing but the palette's colours and fixed words (font stacks: family names from the site's table): no owner
      // string reaches a stylesheet.
      const stacks = [...theme[0]!.matchAll(/--font-(?:latin|arabic):([^;}]*)/g)].map((m) => m[1]!);
      for (const stack of stacks) expect(stack).toMatch(/^[A-Z0-9 ',-]+$/i);
      // Its one address: the owner's background image, from this site.
      const images = [...theme[0]!.matchAll(/url\(([^)]*)\)/g)].map((m) => m[1]!);
      for (const image of images) expect(image).toMatch(/^\/images\/[0-9a-f]{32}-w(?:800|1600)\.webp$/);
      expect(
        theme[0]!.replace(/--font-(?:latin|arabic):[^;}]*/g, '').replace(/url\(\/images\/[\w.-]+\)/g, ''),
      ).not.toMatch(/url\(|@import|expression|[<>"'\\]/);
      for (const css of styles) expect(styleSrc(res)).toContain(sourceOf(css));
    },
  );

  it('leaves a page without a theme in the site’s look, its policy the site’s own', async () => {
    const [layla, blog] = await Promise.all([get('/p/layla'), get('/en/blog')]);
    expect(stylesOf(await layla.text()).filter((css) => css.startsWith('html:root{'))).toEqual([]);
    await blog.arrayBuffer();
    expect(layla.headers.get('content-security-policy')).toBe(blog.headers.get('content-security-policy'));
  });

  it('draws a background image from this site, under a scrim, at the width of the screen', async () => {
    const css = stylesOf(await (await get('/c/k7f2q9')).text()).find((c) => c.startsWith('html:root{'))!;
    const images = [...css.matchAll(/url\(([^)]*)\)/g)].map((m) => m[1]!);
    // A phone's file and a wide screen's, in each scheme.
    expect(new Set(images.map((i) => /-w(\d+)\./.exec(i)?.[1]))).toEqual(new Set(['800', '1600']));
    expect(css).toMatch(/linear-gradient\(rgba\(255,255,255,0\.\d+\),rgba\(255,255,255,0\.\d+\)\),url\(/);
    for (const image of new Set(images)) {
      const res = await get(image);
      expect(res.status, image).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/webp');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const { width } = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      expect(width, image).toBe(Number(/-w(\d+)\./.exec(image)?.[1]));
    }
  });

  it('draws the QR codes in the accent, dark enough to scan on white; in black without a theme', async () => {
    const inkOf = async (path: string) => /<path stroke="(#[0-9a-f]{6})"/.exec(await (await get(path)).text())?.[1];
    for (const path of ['/p/sam-rivera/qr.svg', '/c/nakheel1/qr.svg', '/c/nakheel1/contact-qr.svg']) {
      const ink = (await inkOf(path))!;
      expect(ink, path).not.toBe('#000000');
      expect(contrast(ink, '#ffffff'), path).toBeGreaterThanOrEqual(7);
    }
    expect(await inkOf('/p/layla/qr.svg')).toBe('#000000');
  });

  it("draws the link preview on the owner's accent", async () => {
    const page = await (await get('/p/qahwat-alnakheel/en')).text();
    const src = /<meta property="og:image" content="([^"]+)"/.exec(page)?.[1] ?? '';
    const png = Buffer.from(await (await get(new URL(src).pathname + new URL(src).search)).arrayBuffer());
    const { data } = await sharp(png)
      .extract({ left: 4, top: 4, width: 1, height: 1 })
      .raw()
      .toBuffer({ resolveWithObject: true });
    // The café's accent, #8b4513, reads on its cream ground and is drawn as given.
    expect([...data.subarray(0, 3)]).toEqual([0x8b, 0x45, 0x13]);
  });

  it('gives agents the text alone: the Markdown twin carries no style', async () => {
    const twin = await (await get('/p/sam-rivera.md')).text();
    expect(twin).toContain('Sam Rivera');
    expect(twin).not.toMatch(/html:root|--accent|#[0-9a-f]{6}/);
  });
});
