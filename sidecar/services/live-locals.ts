// What a live page is rendered from (Astro.locals of /p/[page] and /c/[cardId]), built in one place: the sidecar's
// live pages and the editors' preview (scripts/preview-middleware.ts) both call these, so that a new local is added
// once and the preview never differs from production.
import type { Card, LiveLocals, Profile } from '../../src/lib/live-content.ts';
import { cardUrlsOf, contactCode } from '../vcard.ts';

/** A profile's page at `now` (ms): link time windows are judged against it. */
export function profileLocals(profile: Profile, now: number): LiveLocals {
  return { profile, now: new Date(now).toISOString() };
}

/** A page-mode card's page at `now` (ms), with its URLs and offline contact code, which the vCard and codes use too. */
export function cardPage(baseUrl: string, card: Card, now: number) {
  const urls = cardUrlsOf(baseUrl, card);
  const contact = contactCode(card, urls);
  const locals: LiveLocals = { card, contactCodeShort: contact.short, now: new Date(now).toISOString() };
  return { urls, contact, locals };
}
