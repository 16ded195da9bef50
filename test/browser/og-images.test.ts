// Open Graph images: an Arabic title must come out joined and right to left. The reference is Chromium laying out
// the same title in the same fonts at the same place; the image must look like Chromium's joined rendering and
// unlike Chromium's rendering of the same letters isolated (a zero-width non-joiner between each). A renderer that
// does not join, simulated by feeding it the isolated letters, fails that comparison: the test can fail.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { drawOgImage } from '../../src/lib/og-draw.ts';
import { ogDrawingHash } from '../../src/integrations/og-images.ts';
import { blogCard, OG_HEIGHT, OG_WIDTH, ogImagePath, type OgCard } from '../../src/lib/og.ts';
import type { FontKey } from '../../src/lib/fonts.ts';
import { launchChromium } from '../helpers/browser.ts';
import { builtFiles, read } from '../helpers/dist.ts';
import { clientDir, projectRoot, testConfig } from '../helpers/env.ts';

/** The hash of the drawing code of this checkout, as astro.config.mjs gives it to the pages. */
const drawing = ogDrawingHash(projectRoot);

const require = createRequire(import.meta.url);
const font = (file: string) => readFileSync(require.resolve(file)).toString('base64');
const NASKH = font('@expo-google-fonts/noto-naskh-arabic/700Bold/NotoNaskhArabic_700Bold.ttf');
/** The site's Arabic faces as og-draw.ts draws them, by the word a theme names them with. */
const ARABIC_FACES = {
  plex: font('@expo-google-fonts/ibm-plex-sans-arabic/700Bold/IBMPlexSansArabic_700Bold.ttf'),
  naskh: NASKH,
  kufi: font('@expo-google-fonts/noto-kufi-arabic/700Bold/NotoKufiArabic_700Bold.ttf'),
};
const SANS = font('@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf');
const SANS_REGULAR = font('@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf');

const ZWNJ = '\u200c';
/** The same letters, each in its isolated form: a non-joiner between every two. */
const isolated = (text: string) => [...text].join(ZWNJ);

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

/**
 * Chromium's rendering of a card's title alone, where and how og-draw.ts places it (80 px margins, top at 150). Both
 * tests compare with the same two renderings: each is made once.
 */
const renderings = new Map<string, Promise<Buffer>>();
function chromiumTitle(card: OgCard, title: string, size: number, face: FontKey = 'plex'): Promise<Buffer> {
  const key = JSON.stringify([card.lang, title, size, face]);
  let shot = renderings.get(key);
  if (!shot) {
    shot = renderTitle(card, title, size, face);
    renderings.set(key, shot);
  }
  return shot;
}

async function renderTitle(card: OgCard, title: string, size: number, face: FontKey): Promise<Buffer> {
  const page = await browser.newPage({ viewport: { width: OG_WIDTH, height: OG_HEIGHT } });
  await page.setContent(`<!doctype html><html lang="${card.lang}" dir="rtl"><style>
    @font-face { font-family: N; src: url(data:font/ttf;base64,${ARABIC_FACES[face]}); }
    @font-face { font-family: S; src: url(data:font/ttf;base64,${SANS}); }
    html, body { margin: 0; background: #000; }
    p { position: absolute; inset-inline: 80px; top: 150px; margin: 0; font: 700 ${size}px/1.35 N, S; color: #fff; }
  </style><p></p></html>`);
  await page.locator('p').evaluate((p, text) => (p.textContent = text), title);
  await page.evaluate(() => document.fonts.ready);
  const shot = await page.screenshot({ type: 'png' });
  await page.close();
  return shot;
}

/** A grey, blurred half-size copy (600×190) of the title area, white ink on black, for comparing layouts. */
async function thumbnail(png: Buffer, { invertBackground = false } = {}): Promise<Float64Array> {
  // Only the title's band: from its top (150) to the band at the foot.
  let image = sharp(png).extract({ left: 0, top: 140, width: OG_WIDTH, height: 380 }).greyscale();
  if (invertBackground) image = image.threshold(200);
  const { data } = await image
    .resize(600, 190, { kernel: 'cubic' })
    .blur(3)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return Float64Array.from(data, (v) => v / 255);
}

const distance = (a: Float64Array, b: Float64Array) => a.reduce((sum, v, i) => sum + Math.abs(v - b[i]!), 0) / a.length;

/** How our image of `drawn` compares with Chromium's joined and isolated renderings of `title`. */
async function compare(title: string, drawn: string) {
  const card = blogCard(testConfig, 'ar', drawn);
  // Our image, keeping only the white title ink (the kicker and band are not in the compared area or not white).
  const ours = await thumbnail(await drawOgImage(card), { invertBackground: true });
  const joined = await thumbnail(await chromiumTitle(card, title, 76), { invertBackground: true });
  const apart = await thumbnail(await chromiumTitle(card, isolated(title), 76), { invertBackground: true });
  return {
    toJoined: distance(ours, joined),
    toIsolated: distance(ours, apart),
    referencesDiffer: distance(joined, apart),
  };
}

const TITLE = 'رمز QR أم شريحة NFC؟ كيف تشارك بطاقة أعمالك الرقمية';

/** Chromium's rendering of an Arabic card's address line, isolated left to right (<bdi dir=ltr>) or not. */
async function renderHost(host: string, isolate: boolean): Promise<Buffer> {
  const page = await browser.newPage({ viewport: { width: OG_WIDTH, height: OG_HEIGHT } });
  await page.setContent(`<!doctype html><html lang="ar" dir="rtl"><style>
    @font-face { font-family: R; src: url(data:font/ttf;base64,${SANS_REGULAR}); }
    html, body { margin: 0; background: #000; }
    p { position: absolute; inset-inline: 80px; top: 554px; margin: 0; font: 400 30px/1.35 R; color: #fff; }
  </style><p></p></html>`);
  await page
    .locator('p')
    .evaluate(
      (p, [text, ltr]) =>
        ltr
          ? p.append(Object.assign(document.createElement('bdi'), { dir: 'ltr', textContent: text }))
          : (p.textContent = text),
      [host, isolate] as const,
    );
  await page.evaluate(() => document.fonts.ready);
  const shot = await page.screenshot({ type: 'png' });
  await page.close();
  return shot;
}

/**
 * The address band's ink, column by column (the foot, 534 to 630, light on dark), blurred: which characters stand
 * where along the line, whatever their height in it (Chromium and Skia place a line's baseline a pixel or two apart).
 */
async function band(png: Buffer): Promise<Float64Array> {
  const { data, info } = await sharp(png)
    .extract({ left: 0, top: 534, width: OG_WIDTH, height: 96 })
    .greyscale()
    .threshold(150)
    .blur(4)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const columns = new Float64Array(info.width);
  for (let i = 0; i < data.length; i++) columns[i % info.width]! += data[i]! / 255 / info.height;
  return columns;
}

describe('Open Graph images', () => {
  it("draw an owner's name in the typeface their theme names, with no platform name above it (issue 62)", async () => {
    const host = 'bio.example/p/huda';
    const title = 'هدى الشمري';
    const card = (font: FontKey) => ({ lang: 'ar' as const, title, kicker: '', host, font });
    for (const face of ['kufi', 'naskh'] as const) {
      const ours = await thumbnail(await drawOgImage(card(face)), { invertBackground: true });
      const other: FontKey = face === 'kufi' ? 'naskh' : 'kufi';
      const inIt = await thumbnail(await chromiumTitle(card(face), title, 76, face), { invertBackground: true });
      const inOther = await thumbnail(await chromiumTitle(card(other), title, 76, other), { invertBackground: true });
      expect(distance(ours, inIt), `${face}: closer to Chromium's ${face} than to the other face`).toBeLessThan(
        distance(ours, inOther) * 0.7,
      );
    }
    // Above the title, where the site's pages print its name, an owner's picture has its ground alone.
    const { data } = await sharp(await drawOgImage(card('kufi')))
      .extract({ left: 0, top: 40, width: OG_WIDTH, height: 90 })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(Math.max(...data) - Math.min(...data)).toBe(0);
  }, 60_000);

  it('draw an Arabic title joined and right to left, as Chromium lays it out', async () => {
    const { toJoined, toIsolated, referencesDiffer } = await compare(TITLE, TITLE);
    expect(referencesDiffer, 'joined and isolated letters must look different').toBeGreaterThan(0.02);
    expect(
      toJoined,
      `closer to Chromium's joined rendering (${toJoined.toFixed(4)}) than to its isolated one (${toIsolated.toFixed(4)})`,
    ).toBeLessThan(toIsolated * 0.5);
  }, 60_000);

  it('would fail a renderer that leaves the letters isolated', async () => {
    const { toJoined, toIsolated } = await compare(TITLE, isolated(TITLE));
    expect(toJoined).toBeGreaterThan(toIsolated);
  }, 60_000);

  it("draw a profile's address left to right on an Arabic card, as a <bdi dir=ltr> reads (issue 46)", async () => {
    const host = '127.0.0.1:18301/p/layla';
    const ours = await band(await drawOgImage({ lang: 'ar', title: 'ليلى', kicker: testConfig.serviceName, host }));
    const isolated = await band(await renderHost(host, true));
    const reordered = await band(await renderHost(host, false));
    expect(distance(isolated, reordered), 'the two orders must look different').toBeGreaterThan(0.005);
    expect(distance(ours, isolated)).toBeLessThan(distance(ours, reordered) * 0.6);
  }, 60_000);

  it('draw an emoji sequence joined with zero-width joiners as one picture, not a box for each person (issue 46)', async () => {
    const title = async (text: string) =>
      thumbnail(await drawOgImage({ lang: 'en', title: text, kicker: 'x', host: 'x' }), { invertBackground: true });
    // Three characters no face has (private use): what a face without the emoji draws for them, nothing or boxes.
    const missing = await title('\ue000\ue000\ue000');
    const family = await title('👨\u200d👩\u200d👧');
    const apart = await title('👨 👩 👧');
    expect(distance(family, missing)).toBeGreaterThan(0.002);
    // Joined, the three people are one picture, not the three drawn apart.
    expect(distance(family, apart)).toBeGreaterThan(0.002);
  }, 60_000);

  it('every built article and blog list page names its image, 1200×630 PNG, with width, height and alt, in its language', async () => {
    const pages = builtFiles('.html').filter(
      (f) => /^\/(ar|en)\/blog(\/[^/]+)?\.html$/.test(f.urlPath) || /^\/(ar|en)\/blog\/(topics|page)\//.test(f.urlPath),
    );
    expect(pages.length).toBeGreaterThan(10);
    for (const { urlPath, file } of pages) {
      const html = read(file);
      const meta = (p: string) => new RegExp(`<meta (?:property|name)="${p}" content="([^"]*)"`).exec(html)?.[1];
      const url = meta('og:image');
      expect(url, urlPath).toMatch(/^http:\/\/localhost:8080\/_astro\/og-[\w-]{16}\.png$/);
      expect(meta('og:image:width'), urlPath).toBe('1200');
      expect(meta('og:image:height'), urlPath).toBe('630');
      expect(meta('og:image:alt')?.length, urlPath).toBeGreaterThan(0);
      expect(meta('twitter:card'), urlPath).toBe('summary_large_image');
      const lang = /<html lang="(\w+)"/.exec(html)?.[1] as 'ar' | 'en';
      const alt = meta('og:image:alt')!
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&');
      expect(new URL(url!).pathname, urlPath).toBe(ogImagePath(blogCard(testConfig, lang, alt), drawing));
      const image = await sharp(join(clientDir, new URL(url!).pathname)).metadata();
      expect([image.format, image.width, image.height], urlPath).toEqual(['png', 1200, 630]);
    }
  });

  it('a changed title is a new image: the name is a hash of what is drawn, never served stale from the cache', () => {
    const a = ogImagePath(blogCard(testConfig, 'en', 'A title'), drawing);
    expect(ogImagePath(blogCard(testConfig, 'en', 'A title'), drawing)).toBe(a);
    expect(ogImagePath(blogCard(testConfig, 'en', 'A title, edited'), drawing)).not.toBe(a);
    expect(ogImagePath(blogCard(testConfig, 'ar', 'A title'), drawing)).not.toBe(a);
    expect(ogImagePath(blogCard({ ...testConfig, serviceName: 'Other' }, 'en', 'A title'), drawing)).not.toBe(a);
  });

  it('changed drawing code is a new image for every page, with no version to remember to raise (issue 30)', () => {
    const copy = mkdtempSync(join(tmpdir(), 'og-drawing-'));
    try {
      for (const file of ['src/lib/og-draw.ts', 'src/integrations/og-worker.ts', 'node_modules/.package-lock.json']) {
        mkdirSync(join(copy, file, '..'), { recursive: true });
        cpSync(join(projectRoot, file), join(copy, file));
      }
      expect(ogDrawingHash(copy)).toBe(drawing);
      writeFileSync(
        join(copy, 'src/lib/og-draw.ts'),
        readFileSync(join(copy, 'src/lib/og-draw.ts'), 'utf8').replace('1200', '1201'),
      );
      const redrawn = ogDrawingHash(copy);
      expect(redrawn).not.toBe(drawing);
      const card = blogCard(testConfig, 'ar', 'عنوان');
      expect(ogImagePath(card, redrawn)).not.toBe(ogImagePath(card, drawing));
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
