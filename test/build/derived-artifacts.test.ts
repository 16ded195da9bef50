// What the build derives from the declaration of the surface (src/lib/surface.ts) says what it declares: the WebMCP
// script's constants and the API documentation. They read the built files, so they are the build tier's: the unit
// tier needs nothing built (issue 47).
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { describeLangs } from '../../src/lib/locales.ts';
import { AGENT_REFUSED_SEGMENTS, CACHE, LANGS, ROUTES, type RouteDeclaration } from '../../src/lib/surface.ts';
import { readBuilt } from '../helpers/dist.ts';

const routes = Object.entries(ROUTES as Record<string, RouteDeclaration>);

describe('what the build derives from the surface', () => {
  it('the WebMCP script carries the declared languages, refusals and route templates', () => {
    const script = readBuilt('/global-scripts/webmcp.js');
    // The script is minified: its constants are an object literal (keys unquoted), read back as JavaScript.
    const literal = /\{langs:\[.*?articles:"[^"]*"\}/.exec(script)?.[0] ?? '{}';
    const constants = runInNewContext(`(${literal})`) as unknown;
    expect(constants).toEqual({
      langs: [...LANGS],
      langNames: describeLangs(),
      refused: [...AGENT_REFUSED_SEGMENTS],
      profile: ROUTES.getProfilePage.path,
      card: ROUTES.getDigitalCard.path,
      blogIndex: ROUTES.listBlogArticles.path,
      articles: '/blog/articles.json',
    });
  });

  it('the API documentation lists every operation and every cache rule in use', () => {
    const docs = readBuilt('/docs/api.md');
    for (const [id, r] of routes) expect(docs, id).toContain(`| \`${id}\` | \`${r.method} ${r.path}\` |`);
    for (const rule of new Set(routes.map(([, r]) => r.cache))) expect(docs).toContain(`\`${CACHE[rule]}\``);
  });
});
