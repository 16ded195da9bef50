// What a business's page says of its hours at one moment (issues 49, 62): open or closed now, and when that changes,
// in the page's language and the place's time zone. An opening a week or more away is named with its date: "opens
// Saturday at 09:00" said on a Saturday afternoon means next week's.
import { fill, t } from './i18n.ts';
import { LOCALES, type Lang } from './locales.ts';
import { clockTime, dayOf, weekdayName, type Schedule } from './place.ts';
import { dateFormat } from './date-formats.ts';

/** Whole calendar days from the day of `from` to the day of `to`, in `zone`. */
const daysBetween = (from: number, to: number, zone: string) =>
  Math.round((Date.parse(dayOf(to, zone)) - Date.parse(dayOf(from, zone))) / 86_400_000);

export function openStatus(schedule: Schedule, now: number, lang: Lang): string {
  const strings = t(lang);
  const locale = LOCALES[lang].dateLocale;
  const { nextChange: next, zone } = schedule;
  const time = next === undefined ? '' : clockTime(next, zone, locale);
  const days = next === undefined ? 0 : daysBetween(now, next, zone);
  const change =
    next === undefined
      ? schedule.open
        ? strings.openAllDay
        : undefined
      : schedule.open
        ? fill(strings.closesAt, { time })
        : days === 0
          ? fill(strings.opensAt, { time })
          : days < 7
            ? fill(strings.opensOn, { time, day: weekdayName(next, zone, locale) })
            : fill(strings.opensOnDate, {
                time,
                day: weekdayName(next, zone, locale),
                date: dateFormat(locale, { timeZone: zone, day: 'numeric', month: 'long' }).format(next),
              });
  return [schedule.open ? strings.openNow : strings.closedNow, change].filter(Boolean).join(' · ');
}
