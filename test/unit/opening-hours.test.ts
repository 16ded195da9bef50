// Hours as owners mean them (issue 62). In OpenStreetMap's syntax a rule after `;` replaces the whole of the days it
// names, so "Sa-Th 07:00-01:00; Fr 14:00-01:00", the way a Riyadh café writes its week, closes Thursday night at
// midnight: Friday's rule takes Friday 00:00-01:00 from it. The import refuses such a week, saying the rule that keeps
// every night (`,` adds where `;` replaces). Drawn at random: weeks of disjoint day groups, each with hours that may
// run past midnight, checked against the week the owner meant, hour by hour. And the page draws a night on the day it
// starts, whole: Thursday 07:00-01:00, not Friday 00:00-01:00.
import fc from 'fast-check';
import OpeningHours from 'opening_hours';
import { describe, expect, it } from 'vitest';
import { openingHoursProblem, scheduleOf } from '../../src/lib/opening-hours.ts';

const DAYS = ['Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su'] as const;
const ZONE = 'Asia/Riyadh';
/** Monday 2026-01-05 00:00 in Riyadh (UTC+3, no daylight saving): a week's start. */
const MONDAY = Date.UTC(2026, 0, 4, 21);
const HOUR = 3_600_000;
const two = (n: number) => String(n).padStart(2, '0');

/** Which hours of the week from MONDAY (0-167, and past it into the next Monday) the rule says are open. */
function openHours(hours: string): Set<number> {
  // Read at Monday 00:00, the seven days shown are this week's; an opening belongs to the day it starts on.
  const schedule = scheduleOf({ address: null, geo: null, openingHours: hours, timeZone: ZONE }, MONDAY);
  if (!schedule) throw new Error(`${hours} does not parse`);
  const open = new Set<number>();
  for (const day of schedule.days)
    for (const { from, to } of day.spans) for (let t = from; t < to; t += HOUR) open.add((t - MONDAY) / HOUR);
  return open;
}

/** The suggestion a refusal makes: the rule in its last quotation marks. */
const suggestion = (problem: string) => /"([^"]+)"[^"]*$/.exec(problem)?.[1];

/** A week as owners write it: groups of days, each open from one hour to another, which may be past midnight. */
const week = fc
  .tuple(
    fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 7, maxLength: 7 }),
    // From 01:00 on: a day opening at 00:00 right after one open until 24:00 reads as one night.
    fc.array(fc.tuple(fc.integer({ min: 1, max: 23 }), fc.integer({ min: 1, max: 23 })), {
      minLength: 4,
      maxLength: 4,
    }),
  )
  .map(([groupOfDay, times]) => {
    const groups = [0, 1, 2, 3]
      .map((g) => ({ days: DAYS.flatMap((_, i) => (groupOfDay[i] === g ? [i] : [])), times: times[g]! }))
      .filter((g) => g.days.length > 0);
    const meant = new Set<number>();
    for (const { days, times } of groups) {
      const [from, length] = times;
      // The week repeats: Sunday night runs into Monday morning.
      for (const day of days) for (let h = 0; h < length; h++) meant.add((day * 24 + from + h) % 168);
    }
    const rule = groups
      .map(({ days, times: [from, length] }) => {
        const end = (from + length) % 24;
        return `${days.map((d) => DAYS[d]).join(',')} ${two(from)}:00-${end === 0 ? '24' : two(end)}:00`;
      })
      .join('; ');
    return { rule, meant };
  });

describe('hours as owners mean them (issue 62)', () => {
  it("refuses the café's week, which loses Thursday night, and says the rule that keeps it", () => {
    const problem = openingHoursProblem('Sa-Th 07:00-01:00; Fr 14:00-01:00', null);
    expect(problem).toContain('Thursday');
    expect(problem).toContain('"Sa-Th 07:00-01:00, Fr 14:00-01:00"');
    // Friday 00:30 is Thursday night: open as the suggestion reads it.
    const open = openHours(suggestion(problem!)!);
    expect(open.has(4 * 24)).toBe(true);
    expect(open.has(5 * 24)).toBe(true);
    expect(open.has(4 * 24 + 2)).toBe(false);
    // Drawn on a Saturday at noon: the night each day starts, whole; Friday night not Saturday's, nor cut at the week's end.
    const saturdayNoon = MONDAY + 5 * 24 * HOUR + 12 * HOUR;
    const place = { address: null, geo: null, openingHours: suggestion(problem!)!, timeZone: ZONE };
    const days = scheduleOf(place, saturdayNoon)!.days;
    const drawn = (n: number) =>
      days[n]!.spans.map(({ from, to }) => [(from - saturdayNoon) / HOUR, (to - saturdayNoon) / HOUR]);
    expect(drawn(0)).toEqual([[-5, 13]]);
    expect(drawn(5)).toEqual([[24 * 5 - 5, 24 * 5 + 13]]);
    expect(drawn(6)).toEqual([[24 * 6 + 2, 24 * 6 + 13]]);
  });

  it('says so when a day closed on purpose takes the night before it, and gives the rule without it', () => {
    const problem = openingHoursProblem('Mo-Sa 18:00-02:00; Su off', null);
    expect(problem).toContain('Saturday');
    expect(suggestion(problem!)).toBe('Mo-Sa 18:00-02:00');
  });

  it("draws 24/7 and a whole day as open, every day they are (an owner's try: 24/7 was drawn closed all week)", () => {
    const drawnWeek = (hours: string) =>
      scheduleOf({ address: null, geo: null, openingHours: hours, timeZone: ZONE }, MONDAY + 12 * HOUR)!.days.map(
        (day) => day.spans.map(({ from, to }) => [(from - MONDAY) / HOUR, (to - MONDAY) / HOUR]),
      );
    for (const always of ['24/7', 'Mo-Su 00:00-24:00'])
      expect(drawnWeek(always), always).toEqual(Array.from({ length: 7 }, (_, d) => [[d * 24, d * 24 + 24]]));
    // Wednesday's night runs into a Thursday open all day: Wednesday 07:00-24:00, Thursday whole, Friday its own.
    const week = drawnWeek('Sa-We 07:00-01:00; Th 00:00-24:00; Fr 14:00-01:00');
    expect(week[2]).toEqual([[2 * 24 + 7, 3 * 24]]);
    expect(week[3]).toEqual([[3 * 24, 4 * 24]]);
    expect(week[4]).toEqual([[4 * 24 + 14, 5 * 24 + 1]]);
    // A night, then the next day's own hours from where the night ends: two days, not one span of 33 hours.
    const split = drawnWeek('Su 11:00-02:00; Mo 02:00-20:00');
    expect(split[6]).toEqual([[6 * 24 + 11, 7 * 24]]);
  });

  it('accepts a later rule that replaces a day on purpose, with no night lost', () => {
    expect(openingHoursProblem('Mo-Su 08:00-22:00; Fr 14:00-22:00', null)).toBeUndefined();
    expect(openingHoursProblem('Sa-Th 07:00-24:00; Fr 13:00-24:00', null)).toBeUndefined();
  });

  it('every week drawn reads as the owner meant it, or is refused with a rule that does', () => {
    fc.assert(
      fc.property(week, ({ rule, meant }) => {
        const problem = openingHoursProblem(rule, null);
        const read = problem === undefined ? rule : suggestion(problem);
        expect(read, `${rule}: ${problem}`).toBeDefined();
        expect(openingHoursProblem(read!, null), read).toBeUndefined();
        // Open or not at each half past the hour of a week, as the library reads the rule.
        const rules = new OpeningHours(read!, null);
        const open = Array.from({ length: 168 }, (_, h) => h).filter((h) =>
          rules.getState(new Date(2026, 0, 5, h, 30)),
        );
        expect(open, read).toEqual([...meant].sort((a, b) => a - b));
      }),
      { numRuns: 300, seed: 62 },
    );
  });

  it('every week written as people write it is read as meant, or answered with the rule to write (issue 62)', () => {
    const names = {
      en: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
      short: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'],
      ar: ['الاثنين', 'الثلاثاء', 'الأربعاء', 'الخميس', 'الجمعة', 'السبت', 'الأحد'],
    };
    const indic = (text: string) => text.replace(/\d/g, (d) => String.fromCharCode(0x0660 + Number(d)));
    const style = fc.record({
      names: fc.constantFrom<keyof typeof names>('en', 'short', 'ar'),
      twelve: fc.boolean(),
      minutes: fc.boolean(),
      indic: fc.boolean(),
      to: fc.constantFrom('-', ' - ', ' to '),
      separator: fc.constantFrom('; ', '\n', ', '),
    });
    fc.assert(
      fc.property(week, style, ({ rule, meant }, s) => {
        const arabic = s.names === 'ar';
        const time = (hour: number) => {
          const h = hour % 24;
          if (!s.twelve) return s.minutes ? `${two(hour)}:00` : String(hour);
          const twelve = h % 12 === 0 ? 12 : h % 12;
          const half = arabic ? (h < 12 ? 'ص' : 'م') : h < 12 ? 'am' : 'pm';
          return `${twelve}${s.minutes ? ':00' : ''}${arabic ? ' ' : ''}${half}`;
        };
        const to = arabic ? ' إلى ' : s.to;
        // The drawn rule, groups and all, written out again: "Mo,Tu 09:00-17:00" as "Mon, Tue 9am to 5pm".
        const written = rule
          .split('; ')
          .map((group) => {
            const [days, hours] = group.split(' ');
            const [from, end] = hours!.split('-').map((t) => Number(t.split(':')[0]));
            const dayNames = days!.split(',').map((d) => names[s.names][DAYS.indexOf(d as (typeof DAYS)[number])]!);
            return `${dayNames.join(arabic ? '، ' : ', ')} ${time(from!)}${to}${time(end!)}`;
          })
          .join(arabic && s.separator === ', ' ? '، ' : s.separator);
        const text = arabic && s.indic ? indic(written) : written;
        const problem = openingHoursProblem(text, null);
        const read = problem === undefined ? text : suggestion(problem);
        expect(read, `${JSON.stringify(text)}: ${problem}`).toBeDefined();
        const rules = new OpeningHours(read!, null);
        const open = Array.from({ length: 168 }, (_, h) => h).filter((h) =>
          rules.getState(new Date(2026, 0, 5, h, 30)),
        );
        expect(open, `${JSON.stringify(text)} read as ${read}`).toEqual([...meant].sort((a, b) => a - b));
      }),
      { numRuns: 300, seed: 62 },
    );
  });

  it('judges and draws any value made of hours words without throwing (a review found "1-2 1-2 …" threw)', () => {
    const words = [
      '1-2',
      '9-5',
      'Mo',
      'Su',
      '-',
      ',',
      ';',
      ' ',
      '24/7',
      '07:00-01:00',
      'off',
      'PH',
      '||',
      '"x"',
      'am',
      'sunset',
      '+',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words), { maxLength: 90 }), (parts) => {
        const hours = parts.join(' ').slice(0, 255);
        expect(() => openingHoursProblem(hours, null)).not.toThrow();
        expect(() =>
          scheduleOf({ address: null, geo: null, openingHours: hours, timeZone: ZONE }, MONDAY),
        ).not.toThrow();
      }),
      { numRuns: 200, seed: 62 },
    );
    expect(openingHoursProblem('1-2 '.repeat(63), null)).toMatch(/^is not/);
  });
});
