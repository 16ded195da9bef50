// Opening hours read (issue 49): OpenStreetMap's `opening_hours` syntax, by the opening_hours library (the parser
// OpenStreetMap's own tools use), in the place's time zone. Judged at import (openingHoursProblem); read for a page at
// the moment of its answer (scheduleOf) in the render threads, since a long rule takes milliseconds to parse: whether
// it is open now, when that next changes (no cache keeps the page past it) and the hours of the coming week.
import OpeningHours from 'opening_hours';
import { hoursAsWritten } from './hours-as-written.ts';
import { DEFAULT_TIME_ZONE, isTimeZone, type Place, type Schedule, type ScheduleDay } from './place.ts';
import { specialHoursProblem, specialOn, spansOf, type SpecialHours } from './special-hours.ts';
import { dateFormat } from './date-formats.ts';

/** The nominatim object the library reads sun times and a country's holidays from: the place's coordinates. */
const nominatimOf = (geo: Place['geo']) =>
  geo ? { lat: geo.lat, lon: geo.lon, address: { country_code: '', state: '' } } : null;

/**
 * The library's rules for `hours`. What it cannot evaluate it throws, having first written the message to
 * console.error itself ("An error occurred … submit a pull request"): an owner's rule would write that to the import's
 * output, or to the sidecar's log at every render of a stored one, so it is kept quiet here and the throw speaks.
 */
function parse(hours: string, nominatim: ReturnType<typeof nominatimOf>): OpeningHours {
  return quietly(() => new OpeningHours(hours, nominatim));
}

/**
 * `read()` with the library's console.error kept quiet: it writes there before it throws, when parsing and when
 * evaluating (its warnings of a rule such as "1-2 1-2 …" end in "Infinite loop", a review found).
 */
function quietly<T>(read: () => T): T {
  const error = console.error;
  console.error = () => undefined;
  try {
    return read();
  } finally {
    console.error = error;
  }
}

/** Parsed rules, by rule and coordinates: parsing a long one costs milliseconds; a thread keeps a thousand. */
const parsed = new Map<string, OpeningHours>();
function rulesOf(hours: string, geo: Place['geo']): OpeningHours {
  const key = `${geo ? `${geo.lat},${geo.lon}` : ''}|${hours}`;
  let rules = parsed.get(key);
  if (!rules) {
    rules = parse(hours, nominatimOf(geo));
    if (parsed.size >= 1000) parsed.clear();
    parsed.set(key, rules);
  }
  return rules;
}

const HOLIDAYS = { PH: 'public holidays', SH: 'school holidays' } as const;

/**
 * Why `hours` (with the place's coordinates) is not opening hours the library reads, or undefined. Holidays (PH,
 * SH) are a country's calendar, which a place here does not name: with coordinates the library refuses them, without
 * it reads them as never; both are refused alike, saying what to write instead.
 */
export function openingHoursProblem(hours: string, geo: Place['geo']): string | undefined {
  let rules: OpeningHours;
  try {
    rules = rulesOf(hours, geo);
    // Coordinates make the library look for the holidays; any will do to learn whether the rule names them.
    if (!geo) parse(hours, nominatimOf({ lat: 0, lon: 0 }));
  } catch (err) {
    const reason = String(err instanceof Error ? err.message : err).replace(/\s+/g, ' ');
    const holidays = /no holidays \((PH|SH)\)/.exec(reason)?.[1] as keyof typeof HOLIDAYS | undefined;
    if (holidays)
      return `names ${HOLIDAYS[holidays]} (${holidays}), whose dates are not known here: write the days out (such as "Dec 25 off") or leave them out`;
    const written = ruleFor(hours, geo);
    if (written)
      return `is not written in OpenStreetMap's syntax (two-letter days Mo-Su, 24-hour times with minutes): write "${written}"`;
    return `is not opening hours in OpenStreetMap's syntax (such as "Mo-Fr 08:00-17:00; Sa 10:00-14:00"): ${reason.slice(0, 200)}`;
  }
  // What the library reads only by guessing ("1-2": 01:00-02:00 or 13:00-14:00?; "daily"; "9 AM to 5 PM") is not
  // stored: the owner is given the rule to write, read here as people write hours, or told what the library doubts. A
  // later rule replacing part of an earlier one is the syntax's own (and its nights are judged below).
  let warnings: string[];
  try {
    warnings = quietly(() => rules.getWarnings());
  } catch {
    return 'is not opening hours the library can read whole: write it in OpenStreetMap\'s syntax (such as "Mo-Fr 08:00-17:00; Sa 10:00-14:00")';
  }
  const doubts = warnings
    .filter((warning) => !/overwrites parts of the previous rule/.test(warning))
    .map((warning) => /<--- \((.*)\)\s*$/s.exec(warning)?.[1] ?? warning);
  if (doubts.length > 0) {
    const written = ruleFor(hours, geo);
    return written
      ? `is not written in OpenStreetMap's syntax (two-letter days Mo-Su, 24-hour times with minutes): write "${written}"`
      : `is not clear: ${doubts[0]!.replace(/\s+/g, ' ').slice(0, 200)}`;
  }
  let lost: ReturnType<typeof lostNights>;
  try {
    lost = quietly(() => lostNights(hours, geo));
  } catch {
    // A year of it cannot be evaluated: nothing can be said of its nights, and the rule itself was read.
    lost = undefined;
  }
  if (!lost) return undefined;
  return `closes ${lost.nights.join(', ')} night at midnight: in this syntax a rule after ";" replaces the whole of the days it names, hours after midnight included${lost.suggestion ? `; to keep those hours, write "${lost.suggestion}"` : ''}`;
}

/** The rule to write for hours written as people write them ("Sat-Thu 7am-11pm"), nights past midnight kept. */
function ruleFor(hours: string, geo: Place['geo']): string | undefined {
  const written = hoursAsWritten(hours);
  if (!written) return undefined;
  try {
    rulesOf(written, geo);
  } catch {
    return undefined;
  }
  const lost = lostNights(written, geo);
  return lost ? lost.suggestion : written;
}

type Interval = [Date, Date, boolean, string | undefined];

/** The parts of `span` that no interval of `cover` (sorted) holds. */
function uncovered(span: [number, number], cover: Interval[]): [number, number][] {
  const left: [number, number][] = [];
  let from = span[0];
  for (const [a, b] of cover) {
    const start = a.getTime();
    const end = b.getTime();
    if (end <= from) continue;
    if (start >= span[1]) break;
    if (start > from) left.push([from, start]);
    from = Math.max(from, end);
    if (from >= span[1]) break;
  }
  if (from < span[1]) left.push([from, span[1]]);
  return left;
}

const time = (d: Date) => `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
const DAY_CODES = ['Su', 'Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa'];

/**
 * Hours past midnight that a later rule takes away (issue 62). In this syntax a rule after `;` replaces the whole of
 * every day it names, so in "Sa-Th 07:00-01:00; Fr 14:00-01:00" Friday's rule takes Friday 00:00-01:00, Thursday
 * night, from Thursday's rule: the library reads Friday 00:30 as closed, which is not what any owner means. Each rule
 * is read alone over a year; a night one opens past midnight, on a day whose opening the whole keeps, but which the
 * whole closes after midnight, is lost. Then the owner is told the nights and given a rule that keeps them, the first
 * of these that reads as meant: the same rules joined by `,` (which adds to the days it names instead of replacing
 * them); the rules without those that close days (a day no rule names is closed anyway); the lost hours added as their
 * own rules.
 */
function lostNights(hours: string, geo: Place['geo']): { nights: string[]; suggestion?: string } | undefined {
  const rules = splitRules(hours);
  if (rules.length < 2 || !mayRunPastMidnight(hours)) return undefined;
  const from = new Date(2026, 0, 1);
  const to = new Date(2027, 0, 8);
  const dayBefore = new Date(2025, 11, 31);
  const whole = rulesOf(hours, geo);
  const kept = whole.getOpenIntervals(from, to) as Interval[];
  const lost: [number, number][] = [];
  for (const rule of rules.slice(0, -1)) {
    let alone: Interval[];
    try {
      alone = parse(rule, nominatimOf(geo)).getOpenIntervals(dayBefore, to);
    } catch {
      return undefined;
    }
    for (const [a, b] of alone) {
      const midnight = new Date(a.getFullYear(), a.getMonth(), a.getDate() + 1);
      if (b <= midnight || midnight < from || !whole.getState(a)) continue;
      lost.push(...uncovered([midnight.getTime(), b.getTime()], kept));
    }
  }
  if (lost.length === 0) return undefined;
  lost.sort((x, y) => x[0] - y[0]);
  const nights = [...new Set(lost.map(([start]) => WEEKDAYS[new Date(start - 1).getDay()]!))];
  const meant = [...kept.map(([a, b]) => [a.getTime(), b.getTime()] as [number, number]), ...lost];
  const reads = (candidate: string) => {
    try {
      return sameTimes(rulesOf(candidate, geo).getOpenIntervals(from, to), meant);
    } catch {
      return false;
    }
  };
  const added = [
    ...new Set(lost.map(([a, b]) => `${DAY_CODES[new Date(a).getDay()]} ${time(new Date(a))}-${time(new Date(b))}`)),
  ];
  const open = rules.filter((rule) => !/\s(off|closed)$/i.test(rule));
  const suggestion = [rules.join(', '), open.join('; '), `${hours}, ${added.join(', ')}`].find(reads);
  return { nights, ...(suggestion ? { suggestion } : {}) };
}

/** Whether some time range in `hours` may end after midnight: an end before its start or past 24:00, or a time the
 * sun sets (the year's reading costs milliseconds: spared for the common week of daytime hours). */
function mayRunPastMidnight(hours: string): boolean {
  if (/sun|dawn|dusk|\+|\(/i.test(hours)) return true;
  for (const [, from, to] of hours.matchAll(/(\d{1,2}:\d\d)\s*-\s*(\d{1,2}:\d\d)/g)) {
    const minutes = (t: string) => Number(t.split(':')[0]) * 60 + Number(t.split(':')[1]);
    if (minutes(to!) <= minutes(from!) || minutes(to!) > 24 * 60) return true;
  }
  return false;
}

/** Whether two lists of open intervals open the same minutes. */
function sameTimes(intervals: Interval[], times: [number, number][]): boolean {
  const merge = (list: [number, number][]) => {
    const sorted = [...list].sort((x, y) => x[0] - y[0]);
    const out: [number, number][] = [];
    for (const [a, b] of sorted) {
      const last = out.at(-1);
      if (last && a <= last[1]) last[1] = Math.max(last[1], b);
      else out.push([a, b]);
    }
    return out.map(([a, b]) => `${a}-${b}`).join(' ');
  };
  return merge(intervals.map(([a, b]) => [a.getTime(), b.getTime()])) === merge(times);
}

/** The rules of `hours` that `;` separates (outside quoted comments); none when it has fallback rules (`||`). */
function splitRules(hours: string): string[] {
  const rules: string[] = [];
  let quoted = false;
  let current = '';
  for (let i = 0; i < hours.length; i++) {
    const c = hours[i]!;
    if (c === '"') quoted = !quoted;
    if (!quoted && c === '|' && hours[i + 1] === '|') return [];
    if (!quoted && c === ';') {
      rules.push(current.trim());
      current = '';
    } else current += c;
  }
  rules.push(current.trim());
  return rules.filter((rule) => rule.length > 0);
}

/** The wall clock in `zone` at `instant`, as a Date whose local fields hold it (what the library reads). */
function wallClock(instant: number, zone: string): Date {
  const parts = Object.fromEntries(
    dateFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
      .formatToParts(new Date(instant))
      .map((p) => [p.type, Number(p.value)]),
  ) as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number>;
  return new Date(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

/** The instant at which the wall clock in `zone` shows `wall`'s local fields (the inverse of wallClock). */
function instantOf(wall: Date, zone: string): number {
  const asUtc = Date.UTC(
    wall.getFullYear(),
    wall.getMonth(),
    wall.getDate(),
    wall.getHours(),
    wall.getMinutes(),
    wall.getSeconds(),
  );
  const offsetAt = (t: number) => {
    const w = wallClock(t, zone);
    return Date.UTC(w.getFullYear(), w.getMonth(), w.getDate(), w.getHours(), w.getMinutes(), w.getSeconds()) - t;
  };
  let t = asUtc - offsetAt(asUtc);
  t = asUtc - offsetAt(t);
  return t;
}

const DAY = 86_400_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * The place's hours at `now` (ms): open or not, the next change, and the seven days from today in its zone. Undefined
 * for a place without hours (or whose stored rule, another writer's, does not parse).
 */
export function scheduleOf(place: Place, now: number): Schedule | undefined {
  if (!place.openingHours) return undefined;
  const zone = place.timeZone && isTimeZone(place.timeZone) ? place.timeZone : DEFAULT_TIME_ZONE;
  let rules: OpeningHours;
  try {
    rules = rulesOf(place.openingHours, place.geo);
  } catch {
    return undefined;
  }
  // Evaluated whole or not at all: a stored rule the library cannot evaluate (another writer's) shows no hours.
  try {
    // Another writer's entry that cannot be read is left out, judged once here rather than at each day.
    const specials = (place.specialHours ?? []).filter((entry) => !specialHoursProblem(entry));
    return quietly(() => weekOf(rules, zone, now, specials));
  } catch {
    return undefined;
  }
}

/**
 * `intervals` (wall-clock openings, merged where they touch) with the day from `from` to `to` given `entry`'s hours:
 * what the week opened within the day is cut out, except the night of the day before (`before`) running past
 * midnight; an opening of the week that starts in the day and runs on past it, its own night, goes with it. The
 * day's own openings are added (one past midnight runs into the next day), and what touches is merged again.
 */
function withSpecialDay(
  intervals: [Date, Date][],
  before: Date,
  from: Date,
  to: Date,
  entry: SpecialHours,
): [Date, Date][] {
  const kept: [Date, Date][] = [];
  for (const [a, b] of intervals) {
    if (b <= from || a >= to) {
      kept.push([a, b]);
      continue;
    }
    // Its own opening (started within the day, a day long at most): given way, with the night it runs into.
    const own = a >= from && b.getTime() - a.getTime() <= DAY;
    if (a < from) {
      const night = a >= before && b.getTime() - a.getTime() <= DAY;
      kept.push([a, night ? (b < to ? b : to) : from]);
    }
    if (b > to && !own) kept.push([to, b]);
  }
  const spans = spansOf(entry.hours);
  if (typeof spans !== 'string')
    for (const [start, end] of spans)
      kept.push([
        new Date(from.getFullYear(), from.getMonth(), from.getDate(), 0, start),
        new Date(from.getFullYear(), from.getMonth(), from.getDate(), 0, end),
      ]);
  kept.sort((x, y) => x[0].getTime() - y[0].getTime());
  const merged: [Date, Date][] = [];
  for (const [a, b] of kept) {
    const last = merged.at(-1);
    if (last && a <= last[1]) {
      if (b > last[1]) last[1] = b;
    } else merged.push([a, b]);
  }
  return merged;
}

/** The schedule `rules` give at `now` in `zone` (scheduleOf's evaluation). */
function weekOf(rules: OpeningHours, zone: string, now: number, specials: readonly SpecialHours[]): Schedule {
  const wallNow = wallClock(now, zone);
  const today = new Date(wallNow.getFullYear(), wallNow.getMonth(), wallNow.getDate());
  let next = rules.getNextChange(wallNow, new Date(wallNow.getTime() + 8 * DAY));
  let open = rules.getState(wallNow);
  // Each day's part of the opening intervals, from the day before the week to the day after (the library cuts
  // intervals at the ends it is given, and merges those that touch: a night into the next morning, a whole week of
  // 24/7). A part that starts at midnight and ends within the day, after the day before ran to midnight from later
  // than its own midnight, and the two within a day, is that night's end: drawn on the night's day (Thursday 07:00-01:00), not as the next
  // morning's 00:00-01:00 (issue 62). A whole day is that day's (24/7 is open every day).
  const dayStart = (i: number) => new Date(today.getFullYear(), today.getMonth(), today.getDate() + i);
  const noonOf = (i: number) =>
    instantOf(new Date(today.getFullYear(), today.getMonth(), today.getDate() + i, 12), zone);
  let intervals: [Date, Date][] = rules.getOpenIntervals(dayStart(-1), dayStart(8)).map(([a, b]) => [a, b]);
  // Days with special hours (special-hours.ts): the week's openings of the day give way to the day's own; the night
  // before that runs past midnight is still the night before's. Open now and the next change are then read from the
  // openings so made.
  const special = new Map<number, SpecialHours>();
  for (let i = -1; i < 8; i++) {
    const entry = specialOn(noonOf(i), zone, specials);
    if (entry) special.set(i, entry);
  }
  if (special.size > 0) {
    for (const [i, entry] of special)
      intervals = withSpecialDay(intervals, dayStart(i - 1), dayStart(i), dayStart(i + 1), entry);
    intervals = intervals.filter(([a, b]) => a < dayStart(8) && b > dayStart(-1));
    open = intervals.some(([a, b]) => a <= wallNow && wallNow < b);
    const boundaries = intervals.flatMap(([a, b]) => [a, b]).filter((t) => t > wallNow && t < dayStart(8));
    next = boundaries.length > 0 ? new Date(Math.min(...boundaries.map((t) => t.getTime()))) : undefined;
  }
  const parts: { from: Date; to: Date }[][] = [];
  for (let i = -1; i < 8; i++) {
    const [from, to] = [dayStart(i), dayStart(i + 1)];
    parts.push(
      intervals
        .filter(([a, b]) => a < to && b > from)
        .map(([a, b]) => ({ from: a > from ? a : from, to: b < to ? b : to })),
    );
  }
  for (let i = 1; i < parts.length; i++) {
    const [before, day] = [parts[i - 1]!, parts[i]!];
    const first = day[0];
    const last = before.at(-1);
    const midnight = dayStart(i - 1);
    if (
      first &&
      last &&
      first.from.getTime() === midnight.getTime() &&
      first.to < dayStart(i) &&
      last.to.getTime() === midnight.getTime() &&
      last.from > dayStart(i - 2) &&
      // A night and its morning, not a day and the next (Su 11:00-02:00 then Mo 02:00-20:00 stays two).
      first.to.getTime() - last.from.getTime() <= DAY
    ) {
      last.to = first.to;
      day.shift();
    }
  }
  const days: ScheduleDay[] = [];
  for (let i = 0; i < 7; i++) {
    const start = dayStart(i);
    const entry = special.get(i);
    days.push({
      noon: noonOf(i),
      weekday: WEEKDAYS[start.getDay()]!,
      spans: parts[i + 1]!.map(({ from, to }) => ({ from: instantOf(from, zone), to: instantOf(to, zone) })),
      ...(entry ? { special: { period: entry.period, label: entry.label } } : {}),
    });
  }
  const nextChange = next ? instantOf(next, zone) : undefined;
  const midnight = instantOf(new Date(today.getFullYear(), today.getMonth(), today.getDate() + 1), zone);
  return {
    zone,
    open,
    ...(nextChange === undefined ? {} : { nextChange }),
    days,
    freshUntil: Math.min(nextChange ?? Infinity, midnight),
  };
}
