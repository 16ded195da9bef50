// The blog's search in Chromium, on the real server under the real CSP: Arabic queries typed as readers type them
// (a conjunction or preposition stuck to the word, taa marbuta written as haa, diacritics, alef without hamza) find
// the Arabic article; an English query finds English articles only; without JavaScript the page says where to look.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { serverAndBrowser } from '../helpers/browser.ts';

const { server, browser } = serverAndBrowser();

/** One search page a language, opened once: each query is typed into its form as a reader types the next one. */
const searchPages = new Map<string, Promise<{ page: Page; problems: string[] }>>();
function searchPage(lang: string) {
  let opened = searchPages.get(lang);
  if (!opened) {
    opened = (async () => {
      const page = await browser().newPage();
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(e.message));
      await page.goto(`${server().url}/${lang}/blog/search`);
      return { page, problems };
    })();
    searchPages.set(lang, opened);
  }
  return opened;
}

/** Searches from the page's own form, as a reader does; returns the result links, the status line and the URL. */
async function search(
  lang: string,
  query: string,
): Promise<{ links: string[]; status: string; problems: string[]; url: URL }> {
  const { page, problems } = await searchPage(lang);
  await page.getByRole('searchbox').fill(query);
  // The form's handler empties the status line as it starts, before the click returns.
  await page
    .getByRole('button')
    .filter({ hasText: lang === 'ar' ? 'ابحث' : 'Search' })
    .click();
  await page.locator('.search-status').filter({ hasText: /./ }).waitFor();
  const links = await page
    .locator('.search-results a')
    .evaluateAll((as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
  const status = (await page.locator('.search-status').textContent()) ?? '';
  return { links, status, problems: [...problems], url: new URL(page.url()) };
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
    const { links, problems } = await search('ar', query);
    expect(problems).toEqual([]);
    expect(links).toContain('/ar/blog/bitaqat-qr-am-nfc');
    expect(links.every((l) => l.startsWith('/ar/blog/'))).toBe(true);
  });

  it('an English query finds the English article and no Arabic one, and the query stays in the URL', async () => {
    const { links, status, problems, url } = await search('en', 'NFC');
    expect(problems).toEqual([]);
    expect(links).toContain('/en/blog/qr-or-nfc-business-card');
    expect(links.filter((l) => !l.startsWith('/en/blog/'))).toEqual([]);
    expect(status).toMatch(/articles? match/);
    expect(url.searchParams.get('q')).toBe('NFC');
  });

  it('a query nothing matches says so, in the page language', async () => {
    const { links, status } = await search('ar', 'زرافة');
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
