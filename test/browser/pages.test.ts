// Real Chromium on the real server: accessibility (axe-core), direction, and no console error under the real CSP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { TEMPLATES } from '../../scripts/bench/lighthouse-run.ts';
import { axeViolations, launchChromium, visit } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const pages = [
  '/',
  '/ar',
  '/en/blog',
  '/ar/blog',
  '/en/blog/qr-or-nfc-business-card',
  '/ar/blog/bitaqat-qr-am-nfc',
  '/ar/blog/dalil-safhat-alrawabit',
  '/en/blog/topics',
  '/ar/blog/topics',
  '/en/blog/topics/privacy',
  '/ar/blog/topics/link-in-bio',
  '/en/blog/search?q=NFC',
  '/ar/blog/search?q=%D8%A7%D9%84%D8%B4%D8%B1%D9%8A%D8%AD%D8%A9',
  '/docs/api',
];
// Profiles and cards: card-holders.test.ts loads each at a phone's width in both schemes, with the same checks.
/**
 * The pages agentic.test.ts loads in Lighthouse, holding them to 100 in accessibility (axe) and best practices (no
 * console error, failed request or CSP violation): not loaded again here.
 */
const AUDITED = new Set(TEMPLATES.map(([, path]) => path));
const errorPages = ['/ar/blog/missing', '/en/nothing'];

describe('pages in Chromium', () => {
  it.each([
    ...pages.filter((path) => !AUDITED.has(path)).map((path) => [path, 200] as const),
    ...errorPages.map((path) => [path, 404] as const),
  ])(
    '%s (%s) loads under the real CSP with no console error or failed request, and no serious or critical axe violation',
    async (path, status) => {
      // A 404's own status is the point of an error page, not a problem it has.
      const { page, problems, response } = await visit(
        browser,
        server.url + path,
        (text) => status === 404 && text.includes('404'),
      );
      expect(response?.status()).toBe(status);
      const stylesApplied = await page.evaluate(
        () => getComputedStyle(document.querySelector('main') as Element).maxInlineSize,
      );
      const violations = await axeViolations(page);
      expect(problems).toEqual([]);
      expect(stylesApplied).not.toBe('none');
      expect(violations).toEqual([]);
    },
  );

  it('lists articles with their topics as pills of their own and a spaced date line (issue 49)', async () => {
    const { page } = await visit(browser, server.url + '/en/blog');
    const look = await page.evaluate(() => {
      const pill = document.querySelector('.article-list .tags li') as HTMLElement;
      const style = getComputedStyle(pill);
      return {
        height: pill.getBoundingClientRect().height,
        ruleBelow: style.borderBlockEndWidth,
        meta: document.querySelector('.article-list .meta')?.textContent?.replace(/\s+/g, ' ').trim() ?? '',
      };
    });
    // A pill is a line of text tall, with no rule under it (it took the article's padding and border: 64 px).
    expect(look.height).toBeLessThan(44);
    expect(look.ruleBelow).toBe('0px');
    expect(look.meta).toMatch(/\d{4} · \d+ minutes? read$/);
  });

  it('lays Arabic pages out right to left and English left to right', async () => {
    const { page } = await visit(browser, server.url + '/ar/blog');
    expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe('rtl');
    // The brand sits at the inline start: the right edge in RTL.
    const arabic = await page.evaluate(() => {
      const brand = document.querySelector('.brand')?.getBoundingClientRect();
      return { brandRight: brand?.right ?? 0, width: document.documentElement.clientWidth };
    });
    expect(arabic.brandRight).toBeGreaterThan(arabic.width / 2);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('h1') as Element).letterSpacing)).toBe(
      'normal',
    );
    await page.goto(server.url + '/en/blog');
    expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe('ltr');
  });
});
