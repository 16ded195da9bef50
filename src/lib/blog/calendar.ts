// The blog's time zone, stated once in content/blog/calendar.json (an IANA name): the zone of a date an editor writes
// without an hour or an offset (`date: 2026-09-14` is midnight there), of the hourly publish run's "has its day come",
// and of the day the pages show under an article's title. Editors change it there; the content checks, the build, the
// feeds and the publish run all read it from here.
import calendar from '../../../content/blog/calendar.json' with { type: 'json' };
import { LOCALES, type Lang } from '../locales.ts';
import { dateFormat } from '../date-formats.ts';

export const CALENDAR_FILE = 'content/blog/calendar.json';

/** Whether `zone` is a time zone this Node knows (an IANA name such as Asia/Riyadh, or UTC). */
function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone === '') return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

if (!isTimeZone(calendar.timeZone))
  throw new Error(
    `${CALENDAR_FILE}: "timeZone" must be an IANA time zone such as "Asia/Riyadh" or "UTC" (got ${JSON.stringify(calendar.timeZone)})`,
  );

export const BLOG_TIME_ZONE: string = calendar.timeZone;

/** The day of `date` in the blog's time zone, as a reader of `lang` writes it (under an article's title, in lists). */
export function formatDate(date: Date, lang: Lang): string {
  return dateFormat(LOCALES[lang].dateLocale, {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    timeZone: BLOG_TIME_ZONE,
  }).format(date);
}
