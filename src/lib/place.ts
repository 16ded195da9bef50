// A business's place (issue 49): its address, where it is on the map, its opening hours in OpenStreetMap's
// `opening_hours` syntax and the time zone they are kept in; how a page writes its times; and the map links that
// leave no trace: a geo: URI and links to OpenStreetMap, Apple Maps and Google Maps (no embedded map, nothing
// fetched from another host). Reading the hours is opening-hours.ts's, which loads the library only where it runs.
import type { HijriPeriod, SpecialHours } from './special-hours.ts';
import { dateFormat } from './date-formats.ts';

/** A place as stored and shown: each part optional (an address alone, hours alone). */
export interface Place {
  address: string | null;
  geo: { lat: number; lon: number } | null;
  openingHours: string | null;
  /** An IANA time zone (`Asia/Riyadh`): what the hours are kept in. */
  timeZone: string | null;
  /** Days whose hours are not the week's (special-hours.ts): Ramadan, the Eids, holidays. */
  specialHours?: readonly SpecialHours[] | undefined;
}

/** How long a place's texts may be: OpenStreetMap's own limit for a tag's value (255) for the hours. */
export const PLACE_TEXT = { address: 300, openingHours: 255 } as const;

/** The zone a place's hours are read in when it names none. */
export const DEFAULT_TIME_ZONE = 'UTC';

/** Whether `zone` is a time zone this runtime knows (an IANA name: `Asia/Riyadh`, `Europe/London`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  if (zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** One day of the coming week: its date (in the place's zone) and the times it opens and closes. */
export interface ScheduleDay {
  /** The day's noon, an instant: for naming the day in a language, in the place's zone. */
  noon: number;
  /** The English name of its weekday (schema.org's dayOfWeek). */
  weekday: string;
  /** Each opening of the day: from and to, instants. */
  spans: { from: number; to: number }[];
  /** The day's hours are special (special-hours.ts): the named Hijri period, or the owner's label, if any. */
  special?: { period?: HijriPeriod | undefined; label?: string | undefined };
}

/** What a page says of a place's hours at one moment. */
export interface Schedule {
  zone: string;
  open: boolean;
  /** When it next opens or closes (within the coming week), an instant. */
  nextChange?: number;
  days: ScheduleDay[];
  /** When what this says next changes by itself: the next opening or closing, or the next midnight of the zone. */
  freshUntil: number;
}

/** `instant` as the wall clock of `zone` shows it, `HH:MM` (24 hours) in `locale`'s numerals. */
export function clockTime(instant: number, zone: string, locale: string): string {
  return dateFormat(locale, {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(instant);
}

/** Whether a span of a day's hours is the whole day: from one midnight to the next in `zone` (24/7, 00:00-24:00). */
export function isWholeDay(span: { from: number; to: number }, zone: string): boolean {
  return (
    span.to - span.from > 12 * 3_600_000 && isoClock(span.from, zone) === '00:00' && isoClock(span.to, zone) === '00:00'
  );
}

/** A weekday's name in `locale`, of the day `instant` falls on in `zone`. */
export function weekdayName(instant: number, zone: string, locale: string): string {
  return dateFormat(locale, { timeZone: zone, weekday: 'long' }).format(instant);
}

/** The calendar date of `instant` in `zone`, `YYYY-MM-DD`. */
export const dayOf = (instant: number, zone: string) =>
  dateFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(instant);

/** `instant` as ISO 8601 to the minute on the wall clock of `zone`, with its offset: `2026-11-28T21:39+03:00`. */
export function isoMoment(instant: number, zone: string): string {
  const parts = dateFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'longOffset',
    numberingSystem: 'latn',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const offset = part('timeZoneName').replace(/^GMT$/, 'GMT+00:00').slice(3);
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}${offset}`;
}

/** `HH:MM` in Latin digits, 24 hours, for machines (schema.org); the end of a day is 23:59. */
export function isoClock(instant: number, zone: string, endOfSpan = false): string {
  const parts = dateFormat(undefined, {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    numberingSystem: 'latn',
  }).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  const time = `${part('hour')}:${part('minute')}`;
  return endOfSpan && time === '00:00' ? '23:59' : time;
}

/**
 * Links to the place on a map, none of them loaded by the page: a geo: URI (RFC 5870: the phone's own maps app), and
 * OpenStreetMap, Apple Maps and Google Maps, at its coordinates when it has them, else searching its address.
 */
export function mapLinks(place: Pick<Place, 'address' | 'geo'>): { name: string; href: string }[] {
  const { geo, address } = place;
  if (geo) {
    const at = `${geo.lat},${geo.lon}`;
    return [
      { name: 'geo', href: `geo:${at}` },
      {
        name: 'OpenStreetMap',
        href: `https://www.openstreetmap.org/?mlat=${geo.lat}&mlon=${geo.lon}#map=18/${geo.lat}/${geo.lon}`,
      },
      { name: 'Apple Maps', href: `https://maps.apple.com/?ll=${at}&q=${encodeURIComponent(address ?? at)}` },
      { name: 'Google Maps', href: `https://www.google.com/maps/search/?api=1&query=${at}` },
    ];
  }
  if (!address) return [];
  const q = encodeURIComponent(address.replace(/\s+/g, ' '));
  return [
    { name: 'geo', href: `geo:0,0?q=${q}` },
    { name: 'OpenStreetMap', href: `https://www.openstreetmap.org/search?query=${q}` },
    { name: 'Apple Maps', href: `https://maps.apple.com/?q=${q}` },
    { name: 'Google Maps', href: `https://www.google.com/maps/search/?api=1&query=${q}` },
  ];
}

/**
 * Directions to the place (issue 62): Google Maps' documented cross-platform address, which opens the maps app a
 * phone has (Google Maps on Android, and on iOS when installed) or the web, with the route from where the visitor is.
 */
export function directionsLink(place: Pick<Place, 'address' | 'geo'>): string | undefined {
  const to = place.geo ? `${place.geo.lat},${place.geo.lon}` : place.address?.replace(/\s+/g, ' ');
  return to ? `https://www.google.com/maps/dir/?api=1&destination=${encodeURIComponent(to)}` : undefined;
}
