// How an Arabic query is widened before it reaches the search index. Pagefind's Snowball stemmer already folds the
// alef forms, taa marbuta and the article ال on both sides; what readers also type, and the stemmer leaves alone, is
// a conjunction or preposition stuck to the word (والشريحة, بالبطاقة, للمبدعين) and diacritics. The query is searched
// as typed, and as these variants, and the results are merged (src/scripts/blog-search.ts).

const DIACRITICS = /[\u064B-\u065F\u0670\u0640]/g;
/** و or ف, then ب, ك or ل, then ال; or لل (ل + ال): the clitics before a definite noun. */
const CLITIC_ARTICLE = /^(?:[وف]?[بكل]?ال|[وف]?لل)(?=\p{L}{2})/u;
/** A lone و or ف before a word of three letters or more (والدة starts with و too: only ever a variant). */
const CONJUNCTION = /^[وف](?=\p{L}{3})/u;

export function normalizeArabic(text: string): string {
  return text
    .normalize('NFC')
    .replace(DIACRITICS, '')
    .replace(/[أإآٱ]/g, 'ا');
}

/** The query as typed, then without the clitics before ال, then without a leading conjunction: distinct, non-empty. */
export function queryVariants(query: string): string[] {
  const typed = query.trim().replace(/\s+/g, ' ');
  const plain = normalizeArabic(typed);
  const words = plain.split(' ');
  const withoutArticle = words.map((w) => w.replace(CLITIC_ARTICLE, '')).join(' ');
  const withoutConjunction = words
    .map((w) => (CLITIC_ARTICLE.test(w) ? w.replace(CLITIC_ARTICLE, '') : w.replace(CONJUNCTION, '')))
    .join(' ');
  return [...new Set([typed, plain, withoutArticle, withoutConjunction])].filter((q) => q !== '');
}
