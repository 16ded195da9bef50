// Rules with one owner (issue 38), for ESLint's no-restricted-syntax: a second copy is refused by the syntax tree (a
// string, a comparison, an `in` test), never by a pattern over the text, which comments and line breaks fool. Used
// by eslint.config.js; test/unit/lint-rules.test.ts shows each catching its copy.

export const OWNED = {
  cache: [
    {
      selector: 'Literal[value=/^(public, (max-age|no-cache)|no-cache$|no-store$)/]',
      message: 'A Cache-Control value: use CACHE from src/lib/surface.ts (one owner of every cache rule).',
    },
  ],
  ownerApp: [
    {
      selector: 'Literal[value=/^\\/?login$/]',
      message: 'An owner-app path: use OWNER_APP_SEGMENTS or OWNER_LOGIN_PATH from src/lib/surface.ts.',
    },
  ],
  language: [
    {
      selector:
        'BinaryExpression[operator=/^[!=]==$/] > Literal.left[value=/^(ar|en)$/], BinaryExpression[operator=/^[!=]==$/] > Literal.right[value=/^(ar|en)$/]',
      message: 'A language compared by hand: ask src/lib/locales.ts (its direction, its locale, the default).',
    },
    {
      selector: "Property[key.name='lang'] > Literal.value[value=/^(ar|en)$/], Literal[value=/^(ar_AR|en_US|en-GB)$/]",
      message: 'A language fact written by hand: it belongs to the locale table (src/lib/locales.ts).',
    },
    {
      selector: "ArrayExpression:has(> Literal[value='ar']):has(> Literal[value='en'])",
      message: 'A list of the languages: use LANGS from src/lib/locales.ts.',
    },
  ],
  result: [
    {
      // (A JSON-RPC message is told apart by its `error` key: that is the protocol's own shape, not a result of ours.)
      selector:
        "BinaryExpression[operator='in'][right.name!='message'] > Literal.left[value=/^(problem|errors?|refused|href|instant|plan|path)$/]",
      message: 'A result told apart by which keys it holds: test its ok (src/lib/result.ts).',
    },
  ],
};
const SERVER_CODE = ['src/**/*.ts', 'sidecar/**/*.ts', 'scripts/**/*.ts', 'deploy/**/*.js'];

/** The owned rules for the server's code, each owner file exempt from its own rule only. */
export function ownedRules() {
  const restricted = (...groups) => ({ 'no-restricted-syntax': ['error', ...groups.flat()] });
  return [
    {
      files: SERVER_CODE,
      ignores: ['src/lib/surface.ts', 'src/lib/locales.ts', 'scripts/bench/**', 'scripts/fuzz/**'],
      rules: restricted(OWNED.cache, OWNED.ownerApp, OWNED.language, OWNED.result),
    },
    // The benches and the fuzzer are clients: a language or a Cache-Control in what they send or expect is their input.
    { files: ['scripts/bench/**/*.ts', 'scripts/fuzz/**/*.ts'], rules: restricted(OWNED.result) },
    { files: ['src/lib/surface.ts'], rules: restricted(OWNED.language, OWNED.result) },
    { files: ['src/lib/locales.ts'], rules: restricted(OWNED.cache, OWNED.ownerApp, OWNED.result) },
  ];
}
