// Special hours on both calendars (issue 62): Ramadan, the Eids and any Hijri range by the Umm al-Qura calendar,
// holidays by Gregorian dates, each with its own hours or closed; read across a Ramadan boundary and a DST change.
import { describe, expect, it } from 'vitest';
import { scheduleOf } from '../../src/lib/opening-hours.ts';
import { isoMoment, type Place } from '../../src/lib/place.ts';
import { calendarsOf, specialHoursProblem } from '../../src/lib/special-hours.ts';
import { validateImport } from '../../sidecar/store/import-format.ts';

const RIYADH = 'Asia/Riyadh';
const HOUR = 3_600_000;

/** The instant of `HH:00` on `date` (YYYY-MM-DD) in Riyadh (UTC+3, no DST). */
const riyadh = (date: string, hour: number) => Date.parse(`${date}T${String(hour).padStart(2, '0')}:00:00+03:00`);

/** The Gregorian date of the first day of Hijri `month` after `after` (YYYY-MM-DD), by Umm al-Qura in Riyadh. */
function firstOf(month: number, after: string): string {
  for (let t = riyadh(after, 12); ; t += 24 * HOUR) {
    const { date, hijri } = calendarsOf(t, RIYADH);
    if (hijri.month === month && hijri.day === 1) return date;
  }
}
const dayAfter = (date: string, n = 1) =>
  new Date(Date.parse(`${date}T12:00:00Z`) + n * 24 * HOUR).toISOString().slice(0, 10);

const cafe = (specialHours: Place['specialHours']): Place => ({
  address: 'Olaya Street, Riyadh',
  geo: null,
  openingHours: 'Mo-Su 07:00-24:00',
  timeZone: RIYADH,
  specialHours,
});

describe('special hours', () => {
  const ramadan = firstOf(9, '2027-01-01');
  const eid = firstOf(10, ramadan);
  const place = cafe([
    { period: 'ramadan', hours: '20:00-03:00' },
    { period: 'eid-al-fitr', hours: 'closed' },
  ]);

  it('knows 1 Ramadan 1448 by Umm al-Qura (8 February 2027) and a month later 1 Shawwal', () => {
    expect(ramadan).toBe('2027-02-08');
    expect(eid).toBe(dayAfter(ramadan, 29));
  });

  it("crosses into Ramadan: the day before keeps the week's hours, the first night runs 20:00-03:00", () => {
    const before = scheduleOf(place, riyadh(dayAfter(ramadan, -1), 12))!;
    expect(before.open).toBe(true);
    const [today, first] = before.days;
    const clock = (t: number) => isoMoment(t, RIYADH).slice(11, 16);
    expect(today!.spans.map((s) => [clock(s.from), clock(s.to)])).toEqual([['07:00', '00:00']]);
    expect(today!.special).toBeUndefined();
    expect(first!.special).toEqual({ period: 'ramadan', label: undefined });
    expect(first!.spans).toEqual([{ from: riyadh(ramadan, 20), to: riyadh(dayAfter(ramadan), 3) }]);
    // At noon on 1 Ramadan it is closed, and opens at 20:00; at 01:00 the next night it is still open until 03:00.
    const noon = scheduleOf(place, riyadh(ramadan, 12))!;
    expect([noon.open, noon.nextChange]).toEqual([false, riyadh(ramadan, 20)]);
    const late = scheduleOf(place, riyadh(dayAfter(ramadan), 1))!;
    expect([late.open, late.nextChange]).toEqual([true, riyadh(dayAfter(ramadan), 3)]);
  });

  it("closes for Eid al-Fitr after Ramadan's last night, and opens again to the week's hours after it", () => {
    const lastNight = scheduleOf(place, riyadh(dayAfter(eid, -1), 21))!;
    expect(lastNight.open).toBe(true);
    // The last night of Ramadan runs into Eid's first morning (its own night), then Eid is closed three days.
    expect(lastNight.nextChange).toBe(riyadh(eid, 3));
    const [, ...eidDays] = lastNight.days;
    expect(eidDays.slice(0, 3).map((d) => [d.special?.period, d.spans.length])).toEqual([
      ['eid-al-fitr', 0],
      ['eid-al-fitr', 0],
      ['eid-al-fitr', 0],
    ]);
    expect(eidDays[3]!.special).toBeUndefined();
    expect(eidDays[3]!.spans).toEqual([{ from: riyadh(dayAfter(eid, 3), 7), to: riyadh(dayAfter(eid, 4), 0) }]);
  });

  it('takes Gregorian dates over a Hijri period: an announced start a day off the computed one', () => {
    const moved = cafe([
      { period: 'ramadan', hours: '20:00-03:00' },
      { dates: ramadan, hours: '07:00-24:00', label: 'Before Ramadan here' },
    ]);
    const day = scheduleOf(moved, riyadh(ramadan, 12))!.days[0]!;
    expect(day.special).toEqual({ period: undefined, label: 'Before Ramadan here' });
    expect(day.spans).toEqual([{ from: riyadh(ramadan, 7), to: riyadh(dayAfter(ramadan), 0) }]);
  });

  it('reads a night across a DST change in its own zone (New York, 14 March 2027: 20:00 EST to 03:00 EDT is six hours)', () => {
    const place: Place = {
      address: null,
      geo: null,
      openingHours: 'Mo-Su 09:00-17:00',
      timeZone: 'America/New_York',
      specialHours: [{ dates: '2027-03-13', hours: '20:00-03:00' }],
    };
    const schedule = scheduleOf(place, Date.parse('2027-03-13T17:00:00Z'))!;
    expect(schedule.days[0]!.spans).toEqual([
      { from: Date.parse('2027-03-14T01:00:00Z'), to: Date.parse('2027-03-14T07:00:00Z') },
    ]);
    expect(schedule.nextChange).toBe(Date.parse('2027-03-14T01:00:00Z'));
  });

  it('refuses what it cannot read, saying what to write', () => {
    expect(specialHoursProblem({ period: 'ramadan', hours: '8pm-3am' })).toMatch(/"8pm-3am" is not a time span/);
    expect(specialHoursProblem({ hijri: '13-01', hours: 'closed' })).toMatch(/"hijri" is a Hijri month and day/);
    expect(specialHoursProblem({ dates: '2027-02-30', hours: 'closed' })).toMatch(/"dates" is "YYYY-MM-DD"/);
    expect(specialHoursProblem({ period: 'ramadan', dates: '2027-02-08', hours: 'closed' })).toMatch(/exactly one/);
    expect(specialHoursProblem({ hijri: '10-01..10-02', hours: 'closed' })).toBeUndefined();
  });

  it('an import names the record, the field and the value of a period it cannot read, and what to write', () => {
    const validated = validateImport(
      {
        profiles: [
          {
            slug: 'cafe',
            name: 'Café',
            lang: 'en',
            place: {
              openingHours: 'Mo-Su 07:00-24:00',
              timeZone: RIYADH,
              specialHours: [
                { period: 'ramadan', hours: '8pm-3am' },
                { period: 'lent', hours: 'closed' },
              ],
            },
          },
          {
            slug: 'shop',
            name: 'Shop',
            lang: 'en',
            place: { specialHours: [{ dates: '2027-01-01', hours: 'closed' }] },
          },
        ],
      },
      () => false,
    );
    expect(validated.ok ? [] : validated.errors).toEqual([
      expect.stringMatching(/^profiles\[0\] \(slug "cafe"\)\.place\.specialHours\[0\]: "8pm-3am" is not a time span/),
      expect.stringMatching(/^profiles\[0\] \(slug "cafe"\)\.place\.specialHours\[1\]: "period" is one of ramadan, /),
      expect.stringMatching(
        /^profiles\[1\] \(slug "shop"\)\.place\.specialHours: are a change to the week's openingHours/,
      ),
    ]);
  });
});
