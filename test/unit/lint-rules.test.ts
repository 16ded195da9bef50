// The lint rules that give a rule one owner (issue 38): a second copy of a declared path (scripts/lint/route-paths.js),
// of a Cache-Control value, an owner-app path, a language fact, or a result told apart by its keys
// (scripts/lint/owned-rules.js) fails `npm run lint`. Each is shown catching its copy, and leaving what is not one.
import { Linter, RuleTester } from 'eslint';
import { describe, expect, it } from 'vitest';
import { OWNED } from '../../scripts/lint/owned-rules.js';
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

/** What no-restricted-syntax with one group of OWNED says of `code`. */
const refusals = (group: keyof typeof OWNED, code: string) =>
  new Linter({ configType: 'flat' })
    .verify(code, [{ rules: { 'no-restricted-syntax': ['error', ...OWNED[group]] } }])
    .map((m) => m.message);

describe('rules with one owner', () => {
  it.each([
    ['cache', "const rule = 'public, max-age=300';"],
    ['cache', "headers['cache-control'] = 'no-store';"],
    ['ownerApp', "const login = '/login';"],
    ['language', "if (lang === 'ar') dir = 'rtl';"],
    ['language', "const fallback = 'en' !== lang;"],
    ['language', "const page = { lang: 'en', title };"],
    ['language', "const languages = ['en', 'ar'];"],
    ['language', "const locale = 'ar_AR';"],
    ['result', "if ('problem' in checked) return;"],
    ['result', "const failed = 'errors' in validated;"],
  ] as const)('%s refuses %s', (group, code) => {
    expect(refusals(group, code)).toHaveLength(1);
  });

  it.each([
    ['cache', 'const rule = CACHE.page;'],
    ['ownerApp', 'const login = OWNER_LOGIN_PATH;'],
    ['language', "const header = ['ar-SA', 'fr'];"],
    ['language', 'if (lang === DEFAULT_LANG) path = "/";'],
    // A JSON-RPC message's `error` is the protocol's own discriminant.
    ['result', "const failed = 'error' in message;"],
  ] as const)('%s lets %s be', (group, code) => {
    expect(refusals(group, code)).toEqual([]);
  });
});
