// Cards and profiles in Chromium at a phone's width, light and dark, Arabic and English: no serious accessibility
// violation (colour contrast included) in either scheme, the codes open without JavaScript, and the share button
// copies the link where the browser has no share sheet. Screenshots of the card page are written to
// test-results/screenshots/ for a reviewer to look at.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchChromium, visit } from '../helpers/browser.ts';
import { projectRoot } from '../helpers/env.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const screenshots = join(projectRoot, 'test-results', 'screenshots');
const PHONE = { width: 412, height: 915 };

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
  mkdirSync(screenshots, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const pages: [string, string][] = [
  ['Arabic card', '/c/k7f2q9'],
  ['English card', '/c/n0rth1'],
  ['Arabic profile', '/p/layla'],
  ['English profile', '/p/sam-rivera'],
  // A profile and a card in two languages, each version (issue 48).
  ['bilingual profile, Arabic version', '/p/qahwat-alnakheel/ar'],
  ['bilingual profile, English version', '/p/qahwat-alnakheel/en'],
  ['bilingual card, Arabic version', '/c/nakheel1/ar'],
  ['bilingual card, English version', '/c/nakheel1/en'],
  // Themes (issue 49): the café's and its card's light ground, Sam's gradient, Northwind's dark ground in both schemes.
  ["a profile on its owner's dark ground", '/p/northwind-studio'],
];
/** Pages whose owner chose a dark ground: light text in either scheme. */
const DARK_GROUNDS = new Set(['/p/northwind-studio', '/c/n0rth1']);

describe.each(['light', 'dark'] as const)('%s scheme, at 412 px', (colorScheme) => {
  let context: BrowserContext;
  beforeAll(async () => {
    context = await browser.newContext({ colorScheme, viewport: PHONE });
  });
  afterAll(() => context?.close());

  it.each(pages)(
    '%s loads under the real CSP with no console error or failed request, and no serious or critical axe violation with its codes open',
    async (name, path) => {
      const { page, problems, response } = await visit(context, server.url + path);
      expect(response?.status()).toBe(200);
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
      expect(await axeViolations(page), name).toEqual([]);
      // The scheme really applied: dark text in the light scheme, light in the dark one, unless the owner's ground
      // is dark (then light in both).
      const ink = await page.evaluate(() => getComputedStyle(document.body).color);
      const [r, g, b] = (ink.match(/\d+/g) ?? []).map(Number);
      expect(r! + g! + b! < 384, ink).toBe(colorScheme === 'light' && !DARK_GROUNDS.has(path));
      // Nothing wider than the phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      if (path.startsWith('/c/'))
        await page.screenshot({
          path: join(screenshots, `${path.slice(3).replaceAll('/', '-')}-${colorScheme}.png`),
          fullPage: true,
        });
      expect(problems).toEqual([]);
    },
  );
});

describe("an owner's theme (issue 49)", () => {
  it("draws the owner's colours: the café's accent as given in the light scheme, one that reads in the dark", async () => {
    const drawn: Record<string, { button: string; ground: string }> = {};
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ colorScheme, viewport: PHONE });
      const { page } = await visit(context, server.url + '/p/qahwat-alnakheel/en');
      drawn[colorScheme] = await page.evaluate(() => ({
        button: getComputedStyle(document.querySelector('.profile-links a')!).backgroundColor,
        ground: getComputedStyle(document.documentElement).backgroundColor,
      }));
      await context.close();
    }
    expect(drawn.light).toEqual({ button: 'rgb(139, 69, 19)', ground: 'rgb(253, 246, 236)' });
    expect(drawn.dark!.button).not.toBe(drawn.light!.button);
    expect(drawn.dark!.ground).not.toBe(drawn.light!.ground);
  });
});

describe("a business's first taps (issue 62)", () => {
  it.each(['/p/qahwat-alnakheel/ar', '/p/qahwat-alnakheel/en'])(
    '%s: open now, Call, WhatsApp and Directions within the first screen of a 390 × 844 phone',
    async (path) => {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      try {
        const { page } = await visit(context, server.url + path);
        const bottoms = await page.evaluate(() =>
          [
            document.querySelector('.open-now'),
            ...document.querySelectorAll(
              '.first-taps a[href^="tel:"], .first-taps a[href*="wa.me"], .first-taps a[href*="maps/dir"]',
            ),
          ].map((element) => element?.getBoundingClientRect().bottom ?? Infinity),
        );
        expect(bottoms).toHaveLength(4);
        for (const bottom of bottoms) expect(bottom).toBeLessThanOrEqual(844);
        // Each a target a thumb can hit (WCAG 2.5.8 asks 24 px; the platforms 44-48).
        const heights = await page.$$eval('.first-taps a', (links) =>
          links.map((a) => a.getBoundingClientRect().height),
        );
        for (const height of heights) expect(height).toBeGreaterThanOrEqual(44);
        // What only agents are told (the hours' zone and moment) is not on the page.
        expect(await page.locator('[data-twin="only"]').count()).toBe(1);
        expect(await page.locator('[data-twin="only"]').isVisible()).toBe(false);
      } finally {
        await context.close();
      }
    },
  );
});

describe('codes and sharing', () => {
  it('the codes open without JavaScript and their images load', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: PHONE });
    const page = await context.newPage();
    await page.goto(server.url + '/c/k7f2q9');
    await page.click('details.codes summary');
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('details.codes img')).every(
        (img) => img.complete && img.naturalWidth > 0,
      ),
    );
    const sizes = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('details.codes img')).map(
        (img) => img.getBoundingClientRect().width,
      ),
    );
    expect(sizes).toHaveLength(2);
    for (const width of sizes) expect(width).toBeGreaterThan(150);
    // Without JavaScript there is no share button to press.
    expect(await page.isVisible('button[data-share-url]')).toBe(false);
    await context.close();
  });

  it('the share button copies the page URL where the browser has no share sheet, and says so', async () => {
    const context = await browser.newContext({ viewport: PHONE });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(server.url + '/c/n0rth1');
    const hasShareSheet = await page.evaluate(() => typeof navigator.share === 'function');
    await page.waitForSelector('button[data-share-url]:not([hidden])');
    if (!hasShareSheet) {
      await page.click('button[data-share-url]');
      await page.waitForFunction(() => document.querySelector('.share-status')?.textContent === 'Link copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('http://localhost:8080/c/n0rth1');
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
