// Opening hours read (issue 49): OpenStreetMap's `opening_hours` syntax, by the opening_hours library (the parser
// OpenStreetMap's own tools use), in the place's time zone. Judged at import (openingHoursProblem); read for a page at
// the moment of its answer (scheduleOf) in the render threads, since a long rule takes milliseconds to parse: whether
// it is open now, when that next changes (no cache keeps the page past it) and the hours of the coming week.
import OpeningHours from 'opening_hours';
import { DEFAULT_TIME_ZONE, isTimeZone, type Place, type Schedule, type ScheduleDay } from './place.ts';

/** The nominatim object the library reads sun times and a country's holidays from: the place's coordinates. */
const nominatimOf = (geo: Place['geo']) =>
  geo ? { lat: geo.lat, lon: geo.lon, address: { country_code: '', state: '' } } : null;

/**
 * The library's rules for `hours`. What it cannot evaluate it throws, having first written the message to
 * console.error itself ("An error occurred … submit a pull request"): an owner's rule would write that to the import's
 * output, or to the sidecar's log at every render of a stored one, so it is kept quiet here and the throw speaks.
 */
function parse(hours: string, nominatim: ReturnType<typeof nominatimOf>): OpeningHours {
  const error = console.error;
  console.error = () => undefined;
  try {
    return new OpeningHours(hours, nominatim);
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
  try {
    rulesOf(hours, geo);
    // Coordinates make the library look for the holidays; any will do to learn whether the rule names them.
    if (!geo) parse(hours, nominatimOf({ lat: 0, lon: 0 }));
    return undefined;
  } catch (err) {
    const reason = String(err instanceof Error ? err.message : err).replace(/\s+/g, ' ');
    const holidays = /no holidays \((PH|SH)\)/.exec(reason)?.[1] as keyof typeof HOLIDAYS | undefined;
    if (holidays)
      return `names ${HOLIDAYS[holidays]} (${holidays}), whose dates are not known here: write the days out (such as "Dec 25 off") or leave them out`;
    return `is not opening hours in OpenStreetMap's syntax (such as "Mo-Fr 08:00-17:00; Sa 10:00-14:00"): ${reason.slice(0, 200)}`;
  }
}

/** The wall clock in `zone` at `instant`, as a Date whose local fields hold it (what the library reads). */
function wallClock(instant: number, zone: string): Date {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
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
  const wallNow = wallClock(now, zone);
  const today = new Date(wallNow.getFullYear(), wallNow.getMonth(), wallNow.getDate());
  const weekEnd = new Date(today.getFullYear(), today.getMonth(), today.getDate() + 7);
  const next = rules.getNextChange(wallNow, new Date(wallNow.getTime() + 8 * DAY));
  const days: ScheduleDay[] = [];
  const intervals = rules.getOpenIntervals(today, weekEnd);
  for (let i = 0; i < 7; i++) {
    const start = new Date(today.getFullYear(), today.getMonth(), today.getDate() + i);
    const end = new Date(today.getFullYear(), today.getMonth(), today.getDate() + i + 1);
    days.push({
      noon: instantOf(new Date(start.getFullYear(), start.getMonth(), start.getDate(), 12), zone),
      weekday: WEEKDAYS[start.getDay()]!,
      // An opening belongs to the day it starts on (one that runs past midnight is shown on its first day).
      spans: intervals
        .filter(([from]) => from >= start && from < end)
        .map(([from, to]) => ({ from: instantOf(from, zone), to: instantOf(to, zone) })),
    });
  }
  const nextChange = next ? instantOf(next, zone) : undefined;
  const midnight = instantOf(new Date(today.getFullYear(), today.getMonth(), today.getDate() + 1), zone);
  return {
    zone,
    open: rules.getState(wallNow),
    ...(nextChange === undefined ? {} : { nextChange }),
    days,
    freshUntil: Math.min(nextChange ?? Infinity, midnight),
  };
}
