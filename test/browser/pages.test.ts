// Real Chromium on the real server: accessibility (axe-core), direction, and no console error under the real CSP.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

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
  '/p/layla',
  '/p/sam-rivera',
  '/c/k7f2q9',
];
const errorPages = ['/ar/blog/missing', '/en/nothing'];

describe('pages in Chromium', () => {
  it.each([...pages, ...errorPages])('%s has no serious or critical axe violation', async (path) => {
    // axe is injected as a script, which our own CSP rightly forbids: bypass it for the audit only.
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await page.goto(server.url + path);
    await page.addScriptTag({ path: axePath });
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: { run: () => Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }).axe.run();
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
    });
    await context.close();
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  });

  it.each(pages)('%s loads under the real CSP with no console error or failed request', async (path) => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('requestfailed', (r) => problems.push(`failed ${r.url()}`));
    const res = await page.goto(server.url + path);
    await page.waitForLoadState('load');
    expect(res?.status()).toBe(200);
    const stylesApplied = await page.evaluate(() => getComputedStyle(document.querySelector('main') as Element).maxInlineSize);
    await page.close();
    expect(problems).toEqual([]);
    expect(stylesApplied).not.toBe('none');
  });

  it('lays Arabic pages out right to left and English left to right', async () => {
    const page = await browser.newPage();
    await page.goto(server.url + '/ar/blog');
    expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe('rtl');
    // The brand sits at the inline start: the right edge in RTL.
    const arabic = await page.evaluate(() => {
      const brand = document.querySelector('.brand')?.getBoundingClientRect();
      return { brandRight: brand?.right ?? 0, width: document.documentElement.clientWidth };
    });
    expect(arabic.brandRight).toBeGreaterThan(arabic.width / 2);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('h1') as Element).letterSpacing)).toBe('normal');
    await page.goto(server.url + '/en/blog');
    expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe('ltr');
    await page.close();
  });
});
