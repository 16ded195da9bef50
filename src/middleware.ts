// The preview (`npm run dev`, Astro's dev server) renders live pages the way the sidecar does: from the local
// database, read through the server's own store. In a build this is dead code (import.meta.env.DEV is false), and
// the sidecar gives live pages their locals itself.
import { defineMiddleware } from 'astro:middleware';
import type { LiveLocals } from './lib/live-content.ts';

export const onRequest = defineMiddleware(async (context, next) => {
  const locals = context.locals as LiveLocals;
  if (import.meta.env.DEV && !locals.profile && !locals.card) {
    const { previewLocals } = await import('./lib/preview-locals.ts');
    Object.assign(locals, await previewLocals(context.url.pathname));
  }
  return next();
});
