// The lint rule that gives every path of the surface one writer (scripts/lint/route-paths.js, issue 38): a second
// copy of a declared path fails `npm run lint`, wherever it is written and whichever route it copies.
import { RuleTester } from 'eslint';
import { describe, it } from 'vitest';
import { routePaths } from '../../scripts/lint/route-paths.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

new RuleTester().run('route-paths', routePaths, {
  valid: [
    "pathOf('getDigitalCardVcard', { cardId });",
    // Paths that are not routes of their own.
    'const index = `/pagefind/${lang}/`;',
    'const home = `/${lang}`;',
    "const script = '/global-scripts/share.js';",
    // In a client (a test, a bench), a literal URL is what a visitor asks.
    { code: "fetch(base + '/health');", options: [{ literals: false }] },
  ],
  invalid: [
    { code: 'const vcf = `/c/${id}.vcf`;', errors: [{ messageId: 'template' }] },
    { code: 'const article = `/${lang}/blog/${slug}`;', errors: [{ messageId: 'template' }] },
    { code: 'const part = `/sitemaps/${n}.xml`;', errors: [{ messageId: 'template' }] },
    { code: 'const profile = `/p/${slug}?utm=x`;', errors: [{ messageId: 'template' }] },
    { code: "const endpoint = '/mcp';", errors: [{ messageId: 'literal' }] },
    { code: "const card = '/.well-known/mcp/server-card.json';", errors: [{ messageId: 'literal' }] },
    // A client may ask a literal URL, never build one by hand.
    { code: 'fetch(`/p/${slug}`);', options: [{ literals: false }], errors: [{ messageId: 'template' }] },
  ],
});
