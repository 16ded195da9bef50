// The preview's live pages (src/middleware.ts, dev server only): a profile or card from the local database, through
// the same store, configuration and contact-code rule as the sidecar. Never part of a build.
import type { LiveLocals } from '../src/lib/live-content.ts';
import { CARD_ID_PATTERN, SLUG_PATTERN } from '../src/lib/surface.ts';
import { loadConfig } from '../sidecar/config.ts';
import { openStore } from '../sidecar/store/open-store.ts';
import type { Store } from '../sidecar/store/store.ts';
import { cardUrlsOf, contactCode } from '../sidecar/vcard.ts';

let store: Store | undefined;
const config = loadConfig();

/** The locals of the live page at `path` (a profile or a page-mode card), or none. */
export async function previewLocals(path: string): Promise<LiveLocals> {
  const [, kind, key, rest] = path.split('/');
  if (rest !== undefined || !key) return {};
  const now = new Date().toISOString();
  if (kind === 'p' && SLUG_PATTERN.test(key)) {
    store ??= openStore(config);
    const profile = await store.profile(key);
    return profile ? { profile, now } : {};
  }
  if (kind === 'c' && CARD_ID_PATTERN.test(key)) {
    store ??= openStore(config);
    const card = await store.card(key);
    if (!card || card.mode !== 'page') return {};
    return { card, now, contactCodeShort: contactCode(card, cardUrlsOf(config.baseUrl, card)).short };
  }
  return {};
}
