// What a live page is rendered from (Astro.locals of /p/[page] and /c/[cardId]), built in one place: the sidecar's
// live pages and the editors' preview (scripts/preview-middleware.ts) both call these, and the render threads and the
// preview both complete them (completeLocals), so that a new local is added once and the preview never differs from
// production (issue 62: the preview drew no theme and no open state, which only the render threads added).
import { createHash } from 'node:crypto';
import {
  cardIn,
  profileIn,
  type Card,
  type LiveLocals,
  type Profile,
  type ProfileVersion,
} from '../../src/lib/live-content.ts';
import type { Lang } from '../../src/lib/locales.ts';
import { scheduleOf } from '../../src/lib/opening-hours.ts';
import { paletteOf, themeCss } from '../../src/lib/theme.ts';
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

/**
 * What a page works out from its locals at their moment, set in them: the place's schedule (its hours read then) and
 * the owner's stylesheet (their theme's colours judged for contrast in both schemes). Done where the page is rendered
 * (the render threads, off the event loop: a long rule takes milliseconds to read; the preview). Returns what the
 * answer needs: until when the page holds by itself, and the CSP source of the owner's stylesheet.
 */
export function completeLocals(locals: LiveLocals): { freshUntil?: number; styleHash?: string } {
  const place = locals.profile?.place ?? locals.card?.place;
  const schedule = place && locals.now ? scheduleOf(place, Date.parse(locals.now)) : undefined;
  if (schedule) locals.schedule = schedule;
  const theme = locals.profile?.theme ?? locals.card?.theme;
  if (theme) locals.themeCss = themeCss(paletteOf(theme).palette);
  return {
    ...(schedule ? { freshUntil: schedule.freshUntil } : {}),
    ...(locals.themeCss
      ? { styleHash: `'sha256-${createHash('sha256').update(locals.themeCss).digest('base64')}'` }
      : {}),
  };
}
