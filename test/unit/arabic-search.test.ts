// How a query is widened before it reaches the search index (src/lib/blog/arabic-search.ts), on a small fixture of the
// spellings Arabic readers type: clitics stuck to a definite noun, a leading conjunction, diacritics and tatweel, the
// alef forms. (Taa marbuta and haa, and the alef forms inside the index, are folded by Pagefind's Snowball stemmer:
// test/browser/search.test.ts searches the real index with them.)
import { describe, expect, it } from 'vitest';
import { normalizeArabic, queryVariants } from '../../src/lib/blog/arabic-search.ts';

describe('Arabic query variants', () => {
  it.each([
    ['والشريحة', 'شريحة'],
    ['بالبطاقة', 'بطاقة'],
    ['فالرابط', 'رابط'],
    ['كالصفحة', 'صفحة'],
    ['للمبدعين', 'مبدعين'],
    ['وللمبدعين', 'مبدعين'],
    ['الخصوصية', 'خصوصية'],
  ])('«%s» is also searched as «%s» (the clitics before ال dropped)', (query, stem) => {
    expect(queryVariants(query)).toContain(stem);
  });

  it.each([
    ['وبطاقة', 'بطاقة'],
    ['فصفحة', 'صفحة'],
  ])('«%s» is also searched without its leading conjunction, as «%s»', (query, without) => {
    expect(queryVariants(query)).toContain(without);
  });

  it('keeps the query as typed first, and never drops a letter from a short word', () => {
    expect(queryVariants('والدة')[0]).toBe('والدة');
    expect(queryVariants('ولد')).toEqual(['ولد']);
    expect(queryVariants('QR NFC')).toEqual(['QR NFC']);
    expect(queryVariants('  ')).toEqual([]);
  });

  it('drops diacritics and tatweel, and writes every alef form as a bare alef', () => {
    expect(normalizeArabic('الشَّرِيحَة')).toBe('الشريحة');
    expect(normalizeArabic('بطـــاقة')).toBe('بطاقة');
    expect(normalizeArabic('أعمال إدارة آمن ٱسم')).toBe('اعمال ادارة امن اسم');
  });

  it('widens every word of a query of several words', () => {
    expect(queryVariants('والبطاقة بالهاتف')).toContain('بطاقة هاتف');
  });
});
