// /global-scripts/webmcp.js: the WebMCP script (src/scripts/webmcp.js) with the constants it needs from the surface
// declaration filled in at build, so the browser's tools refuse and build exactly what the server does.
import type { APIRoute } from 'astro';
import { transform } from 'esbuild';
import source from '../../scripts/webmcp.js?raw';
import { describeLangs } from '../../lib/locales.ts';
import { pathOf, AGENT_REFUSED_SEGMENTS, LANGS, ROUTES } from '../../lib/surface.ts';

const SURFACE = {
  langs: LANGS,
  langNames: describeLangs(),
  refused: [...AGENT_REFUSED_SEGMENTS],
  profile: ROUTES.getProfilePage.path,
  card: ROUTES.getDigitalCard.path,
  blogIndex: ROUTES.listBlogArticles.path,
  articles: pathOf('getBlogArticleList'),
};

export const GET: APIRoute = async () => {
  // The placeholder object, on one line or as a formatter lays it out (it holds no braces of its own).
  const marker = /\/\* surface \*\/ \{[^{}]*\};/;
  if (!marker.test(source)) throw new Error('src/scripts/webmcp.js has lost its /* surface */ constants line');
  // Minified at build (esbuild, which Astro's Vite already brings): every page loads this script, and its comments
  // and indentation were a third of it. The path is fixed by the spec, so it is not bundled or fingerprinted.
  const { code } = await transform(source.replace(marker, `/* surface */ ${JSON.stringify(SURFACE)};`), {
    loader: 'js',
    minify: true,
    target: 'es2022',
    legalComments: 'none',
  });
  return new Response(code, { headers: { 'content-type': 'text/javascript; charset=utf-8' } });
};
