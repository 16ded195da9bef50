// What a live page is rendered from (Astro.locals of /p/[page] and /c/[cardId]), built in one place: the sidecar's
// live pages and the editors' preview (scripts/preview-middleware.ts) both call these, so that a new local is added
// once and the preview never differs from production.
import {
  cardIn,
  profileIn,
  type Card,
  type LiveLocals,
  type Profile,
  type ProfileVersion,
} from '../../src/lib/live-content.ts';
import type { Lang } from '../../src/lib/locales.ts';
import { cardUrlsOf, contactCode } from '../vcard.ts';

/**
 * A profile's page in `lang` (undefined when it is not in that language) at `now` (ms): link time windows are judged
 * against it.
 */
export function profileLocals(profile: Profile, lang: Lang, now: number): LiveLocals | undefined {
  const version: ProfileVersion | undefined = profileIn(profile, lang);
  return version && { profile: version, now: new Date(now).toISOString() };
}

/**
 * A page-mode card's page in one of its languages at `now` (ms). Its offline contact code is the card's, whatever the
 * language (it holds both names): the page says whether it is the short form.
 */
export function cardLocals(baseUrl: string, card: Card, lang: Lang, now: number): LiveLocals | undefined {
  const version = cardIn(card, lang);
  if (!version || card.mode !== 'page') return undefined;
  const contact = contactCode(card, cardUrlsOf(baseUrl, card));
  return { card: version, contactCodeShort: contact.short, now: new Date(now).toISOString() };
}
