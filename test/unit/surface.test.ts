// The surface is declared once (src/lib/surface.ts): every artifact derived from it agrees with it, and no module
// keeps a copy of a rule of its own.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { globSync } from 'node:fs';
import robotsParser from 'robots-parser';
import { describe, expect, it } from 'vitest';
import { frontConfig } from '../../scripts/front-config.ts';
import { resolveSitePath } from '../../sidecar/mcp/read-page.ts';
import { validateImport } from '../../sidecar/store/import-format.ts';
import { robotsTxt } from '../../src/lib/discovery.ts';
import { openApiDocument } from '../../src/lib/openapi.ts';
import {
  AGENT_REFUSED_SEGMENTS,
  CACHE,
  FINGERPRINTED_PATH,
  LANGS,
  OWNER_APP_SEGMENTS,
  RESERVED_SEGMENTS,
  ROUTES,
  SLUG_PATTERN,
  examplePath,
  type RouteDeclaration,
  type RouteId,
} from '../../src/lib/surface.ts';
import { typeOf } from '../../src/lib/media-types.ts';
import { projectRoot, testConfig } from '../helpers/env.ts';

const routes = Object.entries(ROUTES as Record<string, RouteDeclaration>);
const base = testConfig.baseUrl;

describe('the declaration itself', () => {
  it('has unique paths per method, and every parameter of a path declared', () => {
    const keys = routes.map(([, r]) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const [id, r] of routes) {
      const inPath = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(Object.keys(r.params ?? {}).sort(), id).toEqual(inPath.sort());
    }
  });

  it('reserves every fixed first segment of a route, the languages and the owner app', () => {
    for (const [, r] of routes) {
      const first = r.path.split('/')[1] ?? '';
      if (first && !first.includes('{')) expect(RESERVED_SEGMENTS.has(first), r.path).toBe(true);
    }
    for (const s of [...LANGS, ...OWNER_APP_SEGMENTS]) expect(RESERVED_SEGMENTS.has(s), s).toBe(true);
  });

  it('one slug pattern: words of letters and digits joined by single hyphens, 1 to 64 characters', () => {
    for (const good of ['a', 'layla', 'layla-designs', 'a1-b2-c3', 'x'.repeat(64)])
      expect(SLUG_PATTERN.test(good), good).toBe(true);
    for (const bad of ['', '-a', 'a-', 'a--b', 'Layla', 'a_b', 'a.b', 'x'.repeat(65)])
      expect(SLUG_PATTERN.test(bad), bad).toBe(false);
  });
});

describe('derived artifacts agree with the declaration', () => {
  // Issue 38: the feeds', the catalog's and the server card's types were written in their routes and again in a table.
  it("every document of the build is served with its route's declared media type, whatever its extension says", () => {
    for (const [id, r] of routes) {
      if (r.served !== 'static' || r.negotiated) continue;
      const type = typeOf(examplePath(id as RouteId)).split(';')[0];
      expect(r.media, `${id} (${examplePath(id as RouteId)}) is sent as ${type}`).toContain(type);
    }
  });

  it('OpenAPI has exactly the declared paths, methods, operation ids, parameters and statuses', () => {
    const doc = openApiDocument(testConfig) as {
      paths: Record<
        string,
        Record<
          string,
          { operationId: string; parameters?: { name: string; in: string }[]; responses: Record<string, unknown> }
        >
      >;
    };
    expect(Object.keys(doc.paths).sort()).toEqual(routes.map(([, r]) => r.path).sort());
    for (const [id, r] of routes) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      expect(op?.operationId, id).toBe(id);
      expect(
        (op?.parameters ?? [])
          .filter((p) => p.in === 'path')
          .map((p) => p.name)
          .sort(),
        id,
      ).toEqual(Object.keys(r.params ?? {}).sort());
      // The declared statuses, and `default` for what any page may answer (304, 400, 405, 500); the MCP endpoint
      // answers everything as JSON-RPC and declares each.
      const declared = Object.keys(op?.responses ?? {});
      expect(
        declared
          .filter((s) => s !== 'default')
          .map(Number)
          .sort(),
        id,
      ).toEqual([...r.statuses].sort());
      expect(declared.includes('default'), id).toBe(r.served !== 'agents');
    }
  });

  it('robots.txt disallows every segment agents must not use, and allows every static route', () => {
    const robots = robotsParser(`${base}/robots.txt`, robotsTxt(testConfig));
    for (const segment of AGENT_REFUSED_SEGMENTS) {
      expect(robots.isAllowed(`${base}/${segment}`, 'AnyBot'), segment).toBe(false);
      expect(robots.isAllowed(`${base}/${segment}/x`, 'AnyBot'), segment).toBe(false);
    }
    for (const [, r] of routes.filter(([, r]) => r.method === 'GET' && !r.path.includes('{')))
      expect(robots.isAllowed(`${base}${r.path}`, 'AnyBot'), r.path).toBe(true);
  });

  it('read_page refuses every owner-app segment and /mcp, however written', () => {
    for (const segment of AGENT_REFUSED_SEGMENTS) {
      for (const path of [
        `/${segment}`,
        `/${segment.toUpperCase()}/x`,
        `/%${segment.charCodeAt(0).toString(16)}${segment.slice(1)}`,
        `//${segment}`,
      ]) {
        expect(resolveSitePath(path, testConfig), path).toMatchObject({ ok: false, problem: expect.any(String) });
      }
    }
    expect(resolveSitePath('/p/layla', testConfig)).toEqual({ ok: true, path: '/p/layla' });
  });

  it('the import refuses every reserved segment as an alias', () => {
    const aliases = [...RESERVED_SEGMENTS].filter((s) => SLUG_PATTERN.test(s)).map((alias) => ({ alias, page: 'p1' }));
    const validated = validateImport({ profiles: [{ slug: 'p1', name: 'P', lang: 'en' }], aliases }, () => false);
    const errors = validated.ok ? [] : validated.errors;
    expect(errors).toHaveLength(aliases.length);
    for (const e of errors) expect(e).toContain('is reserved');
  });

  it('the nginx front proxies every route the sidecar answers, and treats alias-shaped misses with the declared pattern', () => {
    const conf = frontConfig({
      config: testConfig,
      listen: '127.0.0.1:1',
      sidecars: ['127.0.0.1:2'],
      prefix: '/tmp/x',
    });
    const prefixes = /location ~ \^\/\(([^)]+)\)\/ \{/.exec(conf)?.[1]?.split('|') ?? [];
    for (const [id, r] of routes.filter(([, r]) => r.served !== 'static')) {
      if (r.path === '/{alias}') continue;
      const first = r.path.split('/')[1] ?? '';
      const proxied = r.path.includes('{') ? prefixes.includes(first) : conf.includes(`location = ${r.path} {`);
      expect(proxied, id).toBe(true);
    }
    expect(conf).toContain(`"${SLUG_PATTERN.source.replace('^', '^/')}"`);
    expect(conf).not.toMatch(/\{\{[A-Z_]+\}\}/);
    // Fingerprinted files (surface.ts's one rule, as a regular expression) for a year.
    const escaped = FINGERPRINTED_PATH.source.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    expect(conf).toMatch(new RegExp(`location ~ "${escaped}" \\{[^}]*Cache-Control "${CACHE.immutable}"`));
  });
});

describe('no module keeps a copy of a rule', () => {
  const sources = ['src', 'sidecar', 'scripts', 'deploy']
    .flatMap((dir) => globSync(`${dir}/**/*.{ts,astro,js,mjs,conf}`, { cwd: projectRoot }))
    // The lint rules name the copies they refuse.
    .filter((file) => !file.endsWith('src/lib/surface.ts') && !file.startsWith('scripts/lint/'));
  // In TypeScript, a Cache-Control value, an owner-app path, a language fact and a result told apart by its keys are
  // the linter's to refuse, by the syntax tree (scripts/lint/owned-rules.js); the patterns below read only the files
  // it does not parse (pages, nginx's and Varnish's configuration, the njs module) for those.
  const unlinted = sources.filter((file) => !file.endsWith('.ts'));
  // [what, pattern, the one module besides surface.ts allowed to hold it, whether the linter holds it in TypeScript]
  const copies: [string, RegExp, (string | undefined)?, boolean?][] = [
    [
      'a language list',
      /\[\s*'ar',\s*'en'\s*\]|\[\s*'en',\s*'ar'\s*\]|\(ar\|en\)|'ar' \| 'en'|=== 'ar' \|\|/,
      'src/lib/locales.ts',
      true,
    ],
    // A language fact written beside its language: a comparison, a default, a locale or a direction chosen by hand.
    [
      'a language fact',
      /[!=]== ?'(ar|en)'|'(ar|en)' ?[!=]==|\bdefault\('(ar|en)'\)|'(ar_AR|en_US|en-GB)'|\?\s*'rtl'|\('(ar|en)'\)|lang: '(ar|en)'|IN \('ar'/,
      'src/lib/locales.ts',
      true,
    ],
    ['a slug or card-id pattern', /\[a-z0-9\]\+\(\?:-\[a-z0-9\]\+\)\*|\[A-Za-z0-9_-\]\{3,64\}|\[a-z0-9-\]\{0,62\}/],
    ['an owner-app path list', /['"/]login['"|]|login\|otp/, undefined, true],
    ['a Cache-Control value', /['"](public, (max-age|no-cache)|no-cache|no-store)['"]/, undefined, true],
    // A path of a declared route built by hand is the linter's to refuse (scripts/lint/route-paths.js, every route).
    // Issue 30: publishing knew Pagefind's fragments never change, the sidecar and nginx only /_astro/.
    // Issue 30: the default origin was written three times, the message of a bad configuration twice.
    ['the default origin', /http:\/\/localhost:\$\{/, 'src/lib/site-config.ts'],
    ['the message of a bad configuration', /Invalid configuration/, 'src/lib/site-config.ts'],
    [
      'which files of the build are fingerprinted',
      /startsWith\(['"]\/?_astro\/|location \/_astro\/|pf_meta|\(\?:fragment\|index\)/,
    ],
  ];
  it.each(copies)(
    '%s appears only in src/lib/surface.ts (or the one module named)',
    (_what, pattern, allowed, linted) => {
      const offenders = (linted ? unlinted : sources)
        .filter((file) => file !== allowed && pattern.test(readFileSync(join(projectRoot, file), 'utf8')))
        .map((file) => relative('.', file));
      expect(offenders).toEqual([]);
    },
  );

  // Issue 30: results came in three shapes ({ ok }, a value or { problem }, { plan } or { errors }), each caller
  // testing for a different key.
  it('a result that can be a refusal is told apart by its ok (src/lib/result.ts), never by which keys it holds', () => {
    const byKey = /'(problem|errors?|refused|href|instant|plan|path)' in (?!message\b)\w/;
    const offenders = unlinted.filter((file) => byKey.test(readFileSync(join(projectRoot, file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
