// When an article appears: its `date` (and `updated`) read as the editor wrote them, checked as dates on the calendar
// (no month 13, no February 30, no hour 25: YAML's own reading rolls those over into another day, which silently
// scheduled an article), and placed in the blog's time zone (calendar.ts) unless they name an offset. One rule
// for the content checks, the build (what is published, in which order, shown with which day, in the feeds) and the
// hourly publish run, which is a build.
import { parse } from 'yaml';
import { BLOG_TIME_ZONE } from './calendar.ts';
import type { Result } from '../result.ts';
import { dateFormat } from '../date-formats.ts';

/** A date more than this far ahead is taken for a typo (2062 for 2026) unless the article says it is meant. */
export const MAX_AHEAD_DAYS = 366;
/** The front matter key that says a date more than a year ahead is meant. */
export const FAR_AHEAD_KEY = 'scheduledFarAhead';

export interface WrittenDate {
  /** The moment it names. */
  instant: Date;
  /** As the editor wrote it. */
  written: string;
}

// 2026-09-14, 2026-09-14T09:30, 2026-09-14 09:30:15, 2026-09-14T09:30+03:00, 2026-09-14T09:30:00Z
const FORM =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** How to write one, in words, for a message (the year the editor wrote, so the example is close to what was meant). */
function dateExample(year = 2026, zone = BLOG_TIME_ZONE): string {
  return `write it like ${year}-09-14 (midnight in ${zone}), ${year}-09-14T09:30 (in ${zone}) or ${year}-09-14T09:30+03:00`;
}

/** `written` as a moment, in `zone` unless it names an offset; or why it is not a date on the calendar. */
export function readWrittenDate(written: string, zone = BLOG_TIME_ZONE): Result<WrittenDate> {
  const text = written.trim();
  const form = FORM.exec(text);
  if (!form)
    return { ok: false, problem: `"${written}" is not a date: ${dateExample(new Date().getUTCFullYear(), zone)}` };
  const [year, month, day, hour = 0, minute = 0, second = 0] = form
    .slice(1, 7)
    .map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const offset = form[7];
  const wrong = (why: string) => ({
    ok: false as const,
    problem: `"${written}" is not on the calendar: ${why}; ${dateExample(year, zone)}`,
  });
  if (month! < 1 || month! > 12) return wrong(`there is no month ${month} (months are 01 to 12)`);
  if (day! < 1 || day! > daysIn(year!, month!))
    return wrong(`${MONTHS[month! - 1]} ${year} has ${daysIn(year!, month!)} days, so there is no day ${day}`);
  if (hour > 23) return wrong(`there is no hour ${hour} (hours are 00 to 23)`);
  if (minute > 59) return wrong(`there is no minute ${minute} (minutes are 00 to 59)`);
  if (second > 59) return wrong(`there is no second ${second} (seconds are 00 to 59)`);
  const wall = Date.UTC(year!, month! - 1, day, hour, minute, second);
  if (offset !== undefined) {
    const minutes = offsetMinutes(offset);
    if (minutes === undefined)
      return wrong(`the offset ${offset} is not a time zone's (at most ±14:00, minutes 00 to 59)`);
    return { ok: true, instant: new Date(wall - minutes * 60_000), written };
  }
  return { ok: true, instant: new Date(wall - zoneOffsetMs(zone, wall)), written };
}

/** An offset as written (`Z`, `+03`, `+0300`, `-05:30`) in minutes, or undefined when no zone has it. */
function offsetMinutes(offset: string): number | undefined {
  if (offset === 'Z') return 0;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  if (hours > 14 || minutes > 59 || hours * 60 + minutes > 14 * 60) return undefined;
  return (offset[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** How far `zone`'s clocks are ahead of UTC when they show the wall time `wall` (read as UTC milliseconds). */
function zoneOffsetMs(zone: string, wall: number): number {
  // The offset at the instant the wall time would be in UTC, then once more at the instant that gives (for a change of
  // offset in between, such as daylight saving time).
  let offset = offsetAt(zone, wall);
  offset = offsetAt(zone, wall - offset);
  return offset;
}

/** A wall clock's date and time to the minute, 24 hours. */
const TO_THE_MINUTE = {
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
} as const satisfies Intl.DateTimeFormatOptions;

/** `zone`'s offset from UTC at `instant`, in milliseconds. */
function offsetAt(zone: string, instant: number): number {
  const format = dateFormat('en-US', { timeZone: zone, ...TO_THE_MINUTE, second: '2-digit' });
  const parts = Object.fromEntries(format.formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * The front matter as written: YAML read with its core schema, so a date stays the text the editor typed (YAML's
 * timestamps would turn `2026-13-01` into a Date of 2027-01-01 before anything could look at it). YAML and nothing
 * else: a fence naming another language (`---js`, gray-matter's JavaScript engine, which runs the code; `+++`, TOML)
 * is refused, never read (issue 46: an article opening with `---js` ran its code in the content check and the build,
 * which CI runs with the publishing credentials). Throws with a message naming what is wrong.
 */
export function writtenFrontMatter(fileText: string): Record<string, unknown> {
  const opening = /^\uFEFF?(---|\+\+\+)([^\r\n]*)\r?\n/.exec(fileText);
  if (!opening) return {};
  if (opening[1] === '+++' || opening[2]!.trim() !== '')
    throw new Error(
      `the front matter opens with "${opening[0].trim().slice(0, 40)}": it must be YAML between two lines of --- (another language is never read, nor run)`,
    );
  const rest = fileText.slice(opening[0].length);
  const closing = /^---[ \t]*$/m.exec(rest);
  if (!closing) throw new Error('the front matter has no closing line of ---');
  let data: unknown;
  try {
    data = parse(rest.slice(0, closing.index), { schema: 'core' });
  } catch (err) {
    throw new Error(`the front matter is not valid YAML: ${(err as Error).message.split('\n')[0]}`, { cause: err });
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new Error('the front matter is not a YAML mapping of keys');
  return data as Record<string, unknown>;
}

/** The date and updated of an article's front matter as written (undefined when one is missing or is no text). */
export function writtenDates(data: Record<string, unknown>): { date?: string; updated?: string } {
  const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : undefined);
  const date = text(data.date);
  const updated = text(data.updated);
  return { ...(date === undefined ? {} : { date }), ...(updated === undefined ? {} : { updated }) };
}

/** When an article appears, and when it was last updated, from its file's text; throws naming what is wrong. */
export function articleDates(fileText: string, file: string, zone = BLOG_TIME_ZONE): { date: Date; updated?: Date } {
  const written = writtenDates(writtenFrontMatter(fileText));
  const read = (key: 'date' | 'updated') => {
    const value = written[key];
    if (value === undefined) return undefined;
    const result = readWrittenDate(value, zone);
    if (!result.ok) throw new Error(`${file}: ${key}: ${result.problem}`);
    return result.instant;
  };
  const date = read('date');
  if (!date) throw new Error(`${file}: date: missing; ${dateExample(undefined, zone)}`);
  const updated = read('updated');
  return updated ? { date, updated } : { date };
}

/** Whether an article is shown at `now`: drafts never, scheduled ones from the moment their date names. */
export function isPublished(article: { draft: boolean; date: Date }, now = new Date()): boolean {
  return !article.draft && article.date.getTime() <= now.getTime();
}

/** A moment as editors read it: the day and hour in the blog's zone, and in UTC. */
export function describeMoment(instant: Date, zone = BLOG_TIME_ZONE): string {
  const local = (z: string) =>
    dateFormat('en-CA', { timeZone: z, ...TO_THE_MINUTE })
      .format(instant)
      .replace(', ', ' ');
  return zone === 'UTC' ? `${local('UTC')} UTC` : `${local(zone)} ${zone} (${local('UTC')} UTC)`;
}
