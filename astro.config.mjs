// @ts-check
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import { loadPublicConfig } from './src/lib/site-config.ts';
import markdownTwins from './src/integrations/markdown-twins.ts';
import { pageFacts } from './src/integrations/page-facts.ts';
import staticSitemap from './src/integrations/static-sitemap.ts';
import writeBuildManifest from './src/integrations/write-build-manifest.ts';
import precompress from './src/integrations/precompress.ts';
import contentChecks from './src/integrations/content-checks.ts';
import searchIndex from './src/integrations/search-index.ts';
import ogImages, { ogDrawingHash } from './src/integrations/og-images.ts';
import shippedFonts, { fontFiles } from './src/integrations/fonts.ts';
import publishManifest from './src/integrations/publish-manifest.ts';
import reusePages from './src/integrations/reuse-pages.ts';
import { fileDigests } from './src/integrations/file-digests.ts';

/**
 * The editors' preview (`astro dev`, which `npm run dev` starts) shows drafts and scheduled articles, and renders
 * profiles and cards from the local database as the sidecar does (scripts/preview-middleware.ts); a build does neither.
 * @returns {import('astro').AstroIntegration}
 */
function previewLivePages() {
  return {
    name: 'preview-live-pages',
    hooks: {
      'astro:config:setup': ({ command, addMiddleware, updateConfig }) => {
        // Whether the pages are rendered for the preview (src/lib/build-config.ts): never by a build, whatever
        // NODE_ENV says (Vite's own DEV is true in a build run with NODE_ENV=test).
        updateConfig({ vite: { define: { __EDITORS_PREVIEW__: JSON.stringify(command === 'dev') } } });
        if (command === 'dev')
          addMiddleware({ entrypoint: new URL('./scripts/preview-middleware.ts', import.meta.url), order: 'pre' });
      },
    },
  };
}

// The shell's `$_` (the command it last ran) is not the build's input: Astro (7.3) inlines into the server's code every
// environment variable whose name occurs in the source of a module that reads import.meta.env whole, and `_` occurs in
// all of them, so `npm run build` and `/usr/bin/env npm run build` made different bundles (test/build/build-env.test.ts).
delete process.env._;

// The build reads only what pages embed; the server's own settings are sidecar/config.ts's.
const config = loadPublicConfig();
// What reading the built pages once teaches the build, from the twins step to the sitemap and the manifest.
const pages = pageFacts();
// The built files' hashes, remembered between builds (the twins, the search index, the compressed copies and the
// publish manifest key or list files by their bytes).
const digests = fileDigests();

export default defineConfig({
  site: config.baseUrl,
  output: 'static',
  adapter: node({ mode: 'middleware' }),
  trailingSlash: 'never',
  build: {
    format: 'file',
    // The CSS in every page: a phone paints from the first response instead of waiting for a stylesheet. The
    // Content-Security-Policy allows it by hash (the build records the hashes in dist/build-manifest.json), not
    // with 'unsafe-inline'.
    inlineStylesheets: 'always',
  },
  // Pages whose data (their cacheKey, src/lib/blog/cache-key.ts) and code did not change are reused from the last build
  // (.cache/astro/): an editor's one-article change re-renders that article and the lists it is in. The cache lives
  // in the project (not node_modules/.astro, Astro's default), so that copies of the project made by the tests and
  // the bench, which link node_modules, never share one.
  experimental: { incrementalBuild: true },
  cacheDir: './.cache/astro',
  // Article images (Markdown) get a srcset of widths for phones and desktops and sizes, as WebP (every browser the
  // site serves reads it; the original format is not kept beside it), with width, height and lazy loading. No
  // responsive styles: they would be inline style attributes, which the Content-Security-Policy forbids; the site's
  // stylesheet sizes article images.
  image: { layout: 'constrained', responsiveStyles: false },
  // Shiki colours code with inline style attributes, which the Content-Security-Policy (style-src 'self') forbids.
  markdown: { syntaxHighlight: false },
  vite: {
    build: { assetsInlineLimit: 0 },
    define: {
      __SITE_CONFIG__: JSON.stringify(config),
      __OG_DRAWING__: JSON.stringify(ogDrawingHash(fileURLToPath(new URL('.', import.meta.url)))),
      // The shipped typefaces' fingerprinted files (src/lib/fonts.ts), which the fonts step writes.
      __FONT_FILES__: JSON.stringify(fontFiles(fileURLToPath(new URL('.', import.meta.url)))),
    },
  },
  // In this order: the pages reused from the last build are in place before anything reads them; the twins step
  // reads every page and records what the sitemap and the build manifest need (pages); the twins, the search index
  // and the images are written before they are compressed; the manifest of what to publish is made of the finished
  // build.
  integrations: [
    reusePages(),
    contentChecks(),
    markdownTwins(pages, digests),
    staticSitemap(pages),
    writeBuildManifest(config, pages),
    searchIndex(digests),
    ogImages(config, pages),
    shippedFonts(),
    precompress(digests),
    publishManifest(digests),
    previewLivePages(),
  ],
});
