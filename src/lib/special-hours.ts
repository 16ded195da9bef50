// A business's special hours (issue 62): days whose hours are not the week's, by the Gregorian calendar (a national
// day, a holiday) or by the Hijri one (Ramadan, the two Eids, any Hijri day or range), each with its own hours or
// closed. Hijri dates are read through the Umm al-Qura calendar, which Node's Intl knows (`islamic-umalqura`): the
// calendar Saudi Arabia keeps. Where a country announces a month's start a day off the computed one, the owner gives
// that period by its Gregorian `dates`, which win over Hijri ones (docs/data.md).
import { dateFormat } from './date-formats.ts';

/** The Hijri periods an owner may name: their month, and first and last day (Umm al-Qura). */
const HIJRI_PERIODS = {
  ramadan: { month: 9, from: 1, to: 30 },
  'eid-al-fitr': { month: 10, from: 1, to: 3 },
  'eid-al-adha': { month: 12, from: 10, to: 13 },
} as const;
export type HijriPeriod = keyof typeof HIJRI_PERIODS;
const HIJRI_PERIOD_NAMES = Object.keys(HIJRI_PERIODS) as HijriPeriod[];

/** One period of special hours as stored: exactly one of `period`, `hijri` or `dates`. */
export interface SpecialHours {
  /** A named Hijri period. */
  period?: HijriPeriod;
  /** Hijri `MM-DD`, or a range `MM-DD..MM-DD` within one year. */
  hijri?: string;
  /** Gregorian `YYYY-MM-DD`, or a range `YYYY-MM-DD..YYYY-MM-DD`. */
  dates?: string;
  /** `closed`, or opening times `HH:MM-HH:MM`, several joined by commas; one past midnight runs into the next day. */
  hours: string;
  /** What the owner calls it (`National Day`), shown beside the day; a named period is named by the page. */
  label?: string;
}

/** How many periods a place may have, and how long a label. */
export const SPECIAL_HOURS_LIMITS = { periods: 24, label: 40 } as const;

const TIME = '([01]\\d|2[0-4]):([0-5]\\d)';
const SPAN = new RegExp(`^${TIME}-${TIME}$`);
const HIJRI_DAY = /^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|30)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The minutes of each opening of `hours` from the day's midnight (`to` past 1,440 runs into the next day); `[]`: closed. */
export function spansOf(hours: string): [number, number][] | string {
  if (hours.trim().toLowerCase() === 'closed') return [];
  const spans: [number, number][] = [];
  for (const part of hours.split(',')) {
    const m = SPAN.exec(part.trim());
    if (!m) return `"${part.trim()}" is not a time span: write "20:00-03:00", several joined by commas, or "closed"`;
    const from = Number(m[1]) * 60 + Number(m[2]);
    let to = Number(m[3]) * 60 + Number(m[4]);
    if (from >= 1440) return `"${part.trim()}" starts at 24:00: a day's openings start by 23:59`;
    if (to <= from) to += 1440;
    spans.push([from, to]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < spans.length; i++)
    if (spans[i]![0] < spans[i - 1]![1]) return `"${hours}" has openings that overlap`;
  return spans;
}

/** What is wrong with `entry`, in a sentence an owner can act on; undefined when it is right. */
export function specialHoursProblem(entry: SpecialHours): string | undefined {
  const given = [entry.period, entry.hijri, entry.dates].filter((v) => v !== undefined).length;
  if (given !== 1) return 'give exactly one of "period" (ramadan, eid-al-fitr, eid-al-adha), "hijri" or "dates"';
  if (entry.period !== undefined && !Object.hasOwn(HIJRI_PERIODS, entry.period))
    return `"period" is one of ${HIJRI_PERIOD_NAMES.join(', ')}; another Hijri range is "hijri": "MM-DD..MM-DD"`;
  if (entry.hijri !== undefined) {
    const [from = '', to = from] = entry.hijri.split('..');
    if (!HIJRI_DAY.test(from) || !HIJRI_DAY.test(to))
      return `"hijri" is a Hijri month and day, "MM-DD" or "MM-DD..MM-DD" (e.g. "10-01..10-02"), not "${entry.hijri}"`;
    if (to < from) return `"hijri" "${entry.hijri}" ends before it starts: a range stays within one Hijri year`;
  }
  if (entry.dates !== undefined) {
    const [from = '', to = from] = entry.dates.split('..');
    if (!isDate(from) || !isDate(to))
      return `"dates" is "YYYY-MM-DD" or "YYYY-MM-DD..YYYY-MM-DD" (e.g. "2026-12-31..2027-01-01"), not "${entry.dates}"`;
    if (to < from) return `"dates" "${entry.dates}" ends before it starts`;
  }
  const spans = spansOf(entry.hours);
  return typeof spans === 'string' ? spans : undefined;
}

function isDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/** A day's Gregorian date (`YYYY-MM-DD`) and Umm al-Qura month and day, at `instant` (its noon) in `zone`. */
export function calendarsOf(instant: number, zone: string): { date: string; hijri: { month: number; day: number } } {
  const format = {
    gregorian: dateFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }),
    hijri: dateFormat('en-u-ca-islamic-umalqura-nu-latn', { timeZone: zone, month: 'numeric', day: 'numeric' }),
  };
  const date = format.gregorian.format(instant);
  const parts = format.hijri.formatToParts(instant);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return { date, hijri: { month: part('month'), day: part('day') } };
}

/**
 * The special hours that apply to a day (its noon `instant` in `zone`), if any, of `entries` already judged readable
 * (specialHoursProblem): Gregorian dates first (an owner's override of a computed Hijri date), then Hijri ones; among
 * equals, the last given.
 */
export function specialOn(instant: number, zone: string, entries: readonly SpecialHours[]): SpecialHours | undefined {
  if (entries.length === 0) return undefined;
  const { date, hijri } = calendarsOf(instant, zone);
  const md = `${String(hijri.month).padStart(2, '0')}-${String(hijri.day).padStart(2, '0')}`;
  const within = (range: string, value: string) => {
    const [from = '', to = from] = range.split('..');
    return value >= from && value <= to;
  };
  let found: SpecialHours | undefined;
  let rank = 0;
  for (const entry of entries) {
    const period = entry.period && HIJRI_PERIODS[entry.period];
    const matches = entry.dates
      ? within(entry.dates, date)
      : entry.hijri
        ? within(entry.hijri, md)
        : period !== undefined && hijri.month === period.month && hijri.day >= period.from && hijri.day <= period.to;
    const entryRank = entry.dates ? 2 : 1;
    if (matches && entryRank >= rank) [found, rank] = [entry, entryRank];
  }
  return found;
}
