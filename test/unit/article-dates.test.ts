// Dates as editors write them (issue 31): checked as dates on the calendar, never rolled over, placed in the blog's time
// zone unless they name an offset, and the moment an article appears on both sides of midnight in UTC and in Riyadh.
import { describe, expect, it } from 'vitest';
import { BLOG_TIME_ZONE } from '../../src/lib/blog/calendar.ts';
import { describeMoment, isPublished, readWrittenDate } from '../../src/lib/blog/article-dates.ts';

const instant = (written: string, zone: string) => {
  const read = readWrittenDate(written, zone);
  if (!read.ok) throw new Error(read.problem);
  return read.instant.toISOString();
};

describe('a date as written', () => {
  it.each([
    ['2026-13-01', /no month 13/],
    ['2026-00-10', /no month 0/],
    ['2026-02-30', /February 2026 has 28 days, so there is no day 30/],
    ['2026-02-29', /February 2026 has 28 days/],
    ['2026-04-31', /April 2026 has 30 days/],
    ['2026-09-14T25:00', /no hour 25/],
    ['2026-09-14T10:61', /no minute 61/],
    ['2026-09-14T10:30+15:00', /offset \+15:00/],
    ['2026-9-14', /is not a date/],
    ['14/09/2026', /is not a date/],
    ['tomorrow', /is not a date/],
  ])('%s is refused, saying why and how to write one', (written, why) => {
    const read = readWrittenDate(written, 'Asia/Riyadh');
    expect(!read.ok && read.problem).toMatch(why);
    expect(!read.ok && read.problem).toContain(`"${written}"`);
    expect(!read.ok && read.problem).toMatch(/write it like \d{4}-09-14/);
  });

  it('a leap day in a leap year is a date', () => {
    expect(instant('2028-02-29', 'UTC')).toBe('2028-02-29T00:00:00.000Z');
  });

  it('without an hour or an offset, a date is midnight in the zone; with an offset, the offset decides', () => {
    expect(instant('2026-09-14', 'UTC')).toBe('2026-09-14T00:00:00.000Z');
    expect(instant('2026-09-14', 'Asia/Riyadh')).toBe('2026-09-13T21:00:00.000Z');
    expect(instant('2026-09-14T10:30', 'Asia/Riyadh')).toBe('2026-09-14T07:30:00.000Z');
    expect(instant('2026-09-14 10:30:15', 'Asia/Riyadh')).toBe('2026-09-14T07:30:15.000Z');
    for (const zone of ['UTC', 'Asia/Riyadh', 'America/New_York']) {
      expect(instant('2026-09-14T10:30+02:00', zone)).toBe('2026-09-14T08:30:00.000Z');
      expect(instant('2026-09-14T10:30Z', zone)).toBe('2026-09-14T10:30:00.000Z');
    }
    // A zone with daylight saving time: the offset of that day.
    expect(instant('2026-07-01T12:00', 'America/New_York')).toBe('2026-07-01T16:00:00.000Z');
    expect(instant('2026-12-01T12:00', 'America/New_York')).toBe('2026-12-01T17:00:00.000Z');
  });

  it('the blog states its zone once, and says so when it describes a moment', () => {
    expect(BLOG_TIME_ZONE).toBe('Asia/Riyadh');
    expect(describeMoment(new Date('2026-11-30T21:00:00Z'))).toBe(
      '2026-12-01 00:00 Asia/Riyadh (2026-11-30 21:00 UTC)',
    );
    expect(describeMoment(new Date('2026-11-30T21:00:00Z'), 'UTC')).toBe('2026-11-30 21:00 UTC');
  });
});

describe('when an article dated 2026-12-01 appears', () => {
  const article = (zone: string) => ({ draft: false, date: new Date(instant('2026-12-01', zone)) });
  it.each([
    ['Asia/Riyadh', '2026-11-30T20:59:59Z', false],
    ['Asia/Riyadh', '2026-11-30T21:00:00Z', true],
    ['UTC', '2026-11-30T21:00:00Z', false],
    ['UTC', '2026-11-30T23:59:59Z', false],
    ['UTC', '2026-12-01T00:00:00Z', true],
  ])('in %s, at %s: shown %s', (zone, now, shown) => {
    expect(isPublished(article(zone), new Date(now))).toBe(shown);
  });

  it('a draft never appears', () => {
    expect(isPublished({ ...article('UTC'), draft: true }, new Date('2030-01-01T00:00:00Z'))).toBe(false);
  });
});
