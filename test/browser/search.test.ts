// The blog's search in Chromium, on the real server under the real CSP: Arabic queries typed as readers type them
// (a conjunction or preposition stuck to the word, taa marbuta written as haa, diacritics, alef without hamza) find
// the Arabic article; an English query finds English articles only; without JavaScript the page says where to look.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { serverAndBrowser } from '../helpers/browser.ts';

const { server, browser } = serverAndBrowser();

/** Searches from the page's own form, as a reader does; returns the result links and the status line. */
async function search(
  page: Page,
  lang: string,
  query: string,
): Promise<{ links: string[]; status: string; problems: string[] }> {
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${server().url}/${lang}/blog/search`);
  await page.getByRole('searchbox').fill(query);
  await page
    .getByRole('button')
    .filter({ hasText: lang === 'ar' ? 'ابحث' : 'Search' })
    .click();
  await page.locator('.search-status').filter({ hasText: /./ }).waitFor();
  const links = await page
    .locator('.search-results a')
    .evaluateAll((as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
  return { links, status: (await page.locator('.search-status').textContent()) ?? '', problems };
}

describe('blog search in Chromium', () => {
  it.each([
    ['الشريحة', 'as written in the article'],
    ['والشريحة', 'with و+ال before the word'],
    ['بالشريحة', 'with بـ+ال before the word'],
    ['شريحه', 'taa marbuta written as haa'],
    ['الشَّرِيحَة', 'with diacritics'],
    ['اعمالك', 'alef without hamza (أعمالك)'],
  ])('the Arabic query «%s» (%s) finds the Arabic QR/NFC article', async (query) => {
    const page = await browser().newPage();
    const { links, problems } = await search(page, 'ar', query);
    await page.close();
    expect(problems).toEqual([]);
    expect(links).toContain('/ar/blog/bitaqat-qr-am-nfc');
    expect(links.every((l) => l.startsWith('/ar/blog/'))).toBe(true);
  });

  it('an English query finds the English article and no Arabic one, and the query stays in the URL', async () => {
    const page = await browser().newPage();
    const { links, status, problems } = await search(page, 'en', 'NFC');
    const url = new URL(page.url());
    await page.close();
    expect(problems).toEqual([]);
    expect(links).toContain('/en/blog/qr-or-nfc-business-card');
    expect(links.filter((l) => !l.startsWith('/en/blog/'))).toEqual([]);
    expect(status).toMatch(/articles? match/);
    expect(url.searchParams.get('q')).toBe('NFC');
  });

  it('a query nothing matches says so, in the page language', async () => {
    const page = await browser().newPage();
    const { links, status } = await search(page, 'ar', 'زرافة');
    await page.close();
    expect(links).toEqual([]);
    expect(status).toContain('لا مقال يطابق');
  });

  it('opens with the results of ?q= (a shared search link)', async () => {
    const page = await browser().newPage();
    await page.goto(`${server().url}/en/blog/search?q=${encodeURIComponent('contact details')}`);
    await page.locator('.search-results a').first().waitFor();
    const links = await page
      .locator('.search-results a')
      .evaluateAll((as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
    await page.close();
    expect(links).toContain('/en/blog/qr-or-nfc-business-card');
  });

  it('without JavaScript, says search needs it and offers the index and the topics', async () => {
    const context = await browser().newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server().url}/ar/blog/search`);
    const hint = await page.locator('.search-page').innerText();
    const links = await page
      .locator('.search-browse a')
      .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).getAttribute('href')));
    await context.close();
    expect(hint).toContain('JavaScript');
    expect(links).toEqual(['/ar/blog', '/ar/blog/topics']);
  });

  it('moves nothing a reader sees while it draws the results (no layout shift)', async () => {
    const page = await browser().newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${server().url}/en/blog/search?q=NFC`);
    await page.locator('.search-results a').first().waitFor();
    const shift = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let total = 0;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
              if (!entry.hadRecentInput) total += entry.value;
          }).observe({ type: 'layout-shift', buffered: true });
          setTimeout(() => resolve(total), 300);
        }),
    );
    await page.close();
    expect(shift).toBeLessThan(0.01);
  });
});
