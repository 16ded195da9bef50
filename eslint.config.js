// The linter (`npm run lint`, part of `npm test`): typescript-eslint with type information, for what reviews used to
// find by hand (unused code, promises nobody awaits, assertions a type would make needless), and eslint-plugin-regexp,
// whose super-linear rules refuse a pattern that backtracks on input it reads (issue 36: `/\/+$/` held the event loop
// 0.4 s on 15,000 slashes). Formatting is Prettier's (`npm run format`), so no rule here is about layout.
import js from '@eslint/js';
import globals from 'globals';
import prettier from 'eslint-config-prettier';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';
import { ownedRules } from './scripts/lint/owned-rules.js';
import { routePaths } from './scripts/lint/route-paths.js';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'release/**',
      '.astro/**',
      '.cache/**',
      'node_modules/**',
      'data/**',
      'test-results/**',
      'public/**',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  regexp.configs['flat/recommended'],
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its error (an unhandled rejection ends the process) and its order.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      // An assertion the type already makes true says nothing, and hides the day it stops being true.
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    rules: {
      // Patterns read request or owner input: one that backtracks is a stall anyone can cause.
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
      // A group kept for readability costs nothing; not worth a review's time.
      'regexp/no-unused-capturing-group': 'off',
    },
  },
  // A path of the surface has one writer, pathOf (issue 38): the declaration's shapes, written again, fail the lint.
  {
    files: ['**/*.ts'],
    ignores: ['src/lib/surface.ts'],
    plugins: { local: { rules: { 'route-paths': routePaths } } },
    rules: { 'local/route-paths': 'error' },
  },
  // Tests, benches and the fuzzer are clients: a literal URL there is what a visitor or an agent asks.
  {
    files: ['test/**/*.ts', 'scripts/bench/**/*.ts', 'scripts/fuzz/**/*.ts'],
    rules: { 'local/route-paths': ['error', { literals: false }] },
  },
  // Rules with one owner (issue 38), a second copy refused by the syntax tree, not by a pattern over the text: a
  // Cache-Control value (surface.ts' CACHE), an owner-app path (OWNER_APP_SEGMENTS), a language fact (locales.ts), and
  // a result told apart by which keys it holds instead of its ok (result.ts).
  ...ownedRules(),
  // Node's globals in the configuration files and the front's njs module; a browser's in the pages' scripts.
  { files: ['*.js', '*.mjs', 'deploy/**/*.js'], languageOptions: { globals: globals.node } },
  { files: ['src/scripts/**/*.js'], languageOptions: { globals: globals.browser } },
  prettier,
);
