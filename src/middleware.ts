// The preview (`npm run dev`, Astro's dev server) renders live pages the way the sidecar does: from the local
// database, read through the server's own store (scripts/preview-locals.ts). Only where scripts/dev.ts started the
// dev server (BIO_PREVIEW=1): a build, which also runs this for its prerendered pages, and the sidecar, which gives
// live pages their locals itself, never enter it. The module is named by a URL the bundler does not follow: a build
// (of a copy without sidecar/ included) must not resolve it.
import { defineMiddleware } from 'astro:middleware';
import type { LiveLocals } from './lib/live-content.ts';

export const onRequest = defineMiddleware(async (context, next) => {
  const locals = context.locals as LiveLocals;
  if (process.env.BIO_PREVIEW === '1' && !locals.profile && !locals.card) {
    const preview = new URL('../scripts/preview-locals.ts', import.meta.url).href;
    const { previewLocals } = (await import(/* @vite-ignore */ preview)) as typeof import('../scripts/preview-locals.ts');
    Object.assign(locals, await previewLocals(context.url.pathname));
  }
  return next();
});
