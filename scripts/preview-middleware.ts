// The editors' preview (`npm run dev`) renders live pages the way the sidecar does: a profile or a page-mode card
// from the local database, through the server's store, and the locals the sidecar's live pages are rendered from
// (sidecar/services/live-locals.ts). astro.config.mjs adds this middleware to Astro's dev server only: a build never
// runs it, and nothing in src/ names it.
import type { MiddlewareHandler } from 'astro';
import type { LiveLocals } from '../src/lib/live-content.ts';
import { routeMatcher } from '../src/lib/surface.ts';
import { loadConfig } from '../sidecar/config.ts';
import { cardLocals, completeLocals, profileLocals } from '../sidecar/services/live-locals.ts';
import { openStore } from '../sidecar/store/open-store.ts';
import type { Store } from '../sidecar/store/store.ts';

const config = loadConfig();
const matchLivePage = routeMatcher(['getProfilePage', 'getDigitalCard']);
let store: Store | undefined;

/** The locals of the live page at `path` (a published profile or a page-mode card), or none. */
async function previewLocals(path: string): Promise<LiveLocals> {
  const match = matchLivePage(path);
  if (!match) return {};
  store ??= openStore(config);
  const now = Date.now();
  if (match.id === 'getProfilePage') {
    const profile = await store.profile(match.params.page);
    // The profile in its own language (the sidecar answers /p/{page}/{lang} with the other).
    return (profile && profileLocals(profile, profile.lang, now)) ?? {};
  }
  const card = await store.card(match.params.cardId);
  return (card && cardLocals(config.baseUrl, card, card.lang, now)) ?? {};
}

export const onRequest: MiddlewareHandler = async (context, next) => {
  const locals = context.locals;
  if (!locals.profile && !locals.card) {
    Object.assign(locals, await previewLocals(context.url.pathname));
    // The schedule and the owner's stylesheet, as the render threads add them (the preview sends no CSP to allow it).
    completeLocals(locals);
  }
  return next();
};
