// The content checks on a folder of articles with every kind of mistake: all reported at once, each with its file,
// its line and what is expected (src/lib/blog/content-checks.ts, run by `npm run check:content` and by the build).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkContent, contentReport } from '../../src/lib/blog/content-checks.ts';
import { cleanEnv, projectRoot } from '../helpers/env.ts';
import { temporaryFolder } from '../helpers/temporary.ts';

function contentRoot(files: Record<string, string>): string {
  const root = temporaryFolder('content-checks-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, 'content/blog', path, '..'), { recursive: true });
    writeFileSync(join(root, 'content/blog', path), text);
  }
  return root;
}

const front = (lines: string) => `---\n${lines}\n---\n`;
const ok = (title: string, extra = '') =>
  front(
    `title: ${title}\ndescription: A description long enough for the schema.\ndate: 2026-10-01${extra ? `\n${extra}` : ''}`,
  );

describe('npm run check:content', () => {
  it('passes on the project’s own articles', () => {
    const run = spawnSync(process.execPath, [join(projectRoot, 'scripts/check-content.ts')], {
      env: cleanEnv(),
      encoding: 'utf8',
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('no problem');
  });

  it('names every mistake at once, with its file and line, the value and what is expected', () => {
    const root = contentRoot({
      'images/card.svg': '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>',
      'topics.json': '{\n  "privacy": { "en": "Privacy", "ar": "الخصوصية" },\n  "half-named": { "en": "Half" }\n}\n',
      'en/topical.md': `${ok('Topical', 'topics: [privacy, gardening]')}\nSee [privacy](/en/blog/topics/privacy), [gardening](/en/blog/topics/gardening) and [all topics](/en/blog/topics).\n`,
      'en/search.md': ok('Takes a page of the blog'),
      'en/good.md': `${ok('Good', 'translationKey: pair')}\n## A heading\n\nText.\n`,
      'ar/jayyid.md': `${ok('جيد', 'translationKey: pair')}\n## عنوان فرعي\n\nنص.\n`,
      'en/bad-front.md': front('title: Bad\ndescription: short\ndate: not-a-date\ncolour: red'),
      'en/Bad_Name.md': ok('Bad name'),
      'en/links.md': [
        ok('Links'),
        '',
        'See [a missing article](/en/blog/nope) and [a good one](/en/blog/good).',
        'An anchor that exists: [here](/ar/blog/jayyid#عنوان-فرعي); one that does not: [there](/en/blog/good#missing).',
        '![](../images/card.svg) and ![A card](../images/missing.svg) and [broken](https://exa[mple.com) and [js](javascript:alert(1)).',
        '',
      ].join('\n'),
      'en/lonely.md': ok('Lonely', 'translationKey: alone'),
      'en/twin-a.md': ok('Twin A', 'translationKey: pair'),
      'fr/nope.md': ok('Pas une langue'),
    });
    const problems = checkContent(root);
    const expected = [
      /^content\/blog\/en\/bad-front\.md:3: description: .*20.*\(got "short"\)$/,
      /^content\/blog\/en\/bad-front\.md:4: date: "not-a-date" is not a date: write it like \d{4}-09-14/,
      /^content\/blog\/en\/bad-front\.md:1: .*colour/,
      /^content\/blog\/en\/Bad_Name\.md: the file name "Bad_Name" must be a slug/,
      /^content\/blog\/en\/links\.md:8: "\/en\/blog\/nope": no published article nope in en$/,
      /^content\/blog\/en\/links\.md:9: "\/en\/blog\/good#missing": content\/blog\/en\/good\.md has no heading with the anchor "missing"$/,
      /^content\/blog\/en\/links\.md:10: an image without alt text/,
      /^content\/blog\/en\/links\.md:10: "\.\.\/images\/missing\.svg": no file at content\/blog\/images\/missing\.svg$/,
      /^content\/blog\/en\/links\.md:10: "https:\/\/exa\[mple\.com" is not a valid URL$/,
      /^content\/blog\/en\/links\.md:10: "javascript:alert\(1": only https, http, mailto and tel/,
      /^content\/blog\/en\/lonely\.md:5: translationKey "alone" pairs no translation/,
      /^content\/blog\/en\/twin-a\.md:5: translationKey "pair" is also used by content\/blog\/en\/good\.md in the same language/,
      /^content\/blog\/fr: "fr" is not a language of the site/,
      /^content\/blog\/topics\.json:3: "half-named": ar: .*every topic has a name in ar and en/,
      /^content\/blog\/en\/topical\.md:5: topics: unknown topic "gardening": topics are the keys of content\/blog\/topics\.json \(privacy\) \(got "gardening"\)$/,
      /^content\/blog\/en\/topical\.md:8: "\/en\/blog\/topics\/gardening": no topic "gardening"/,
      /^content\/blog\/en\/search\.md: the file name "search" is taken by the blog's own pages/,
    ];
    for (const pattern of expected)
      expect(
        problems.some((p) => pattern.test(p)),
        `${pattern}\n${problems.join('\n')}`,
      ).toBe(true);
    // Nothing is reported for what is right: the good articles, the existing anchor, the image with alt text.
    expect(
      problems.filter((p) =>
        /^content\/blog\/(en\/good|ar\/jayyid)\.md|عنوان-فرعي|missing\.svg.*A card|topics\/privacy|"\/en\/blog\/topics"/.test(
          p,
        ),
      ),
    ).toEqual([]);
  });

  // Issue 46: gray-matter keeps its JavaScript engine whatever it is given, and ran an article's `---js` front matter
  // in this check and in the build, which CI runs with the publishing credentials.
  it('refuses front matter in another language than YAML, naming the file, and never runs it', () => {
    const marker = join(temporaryFolder('content-js-'), 'ran');
    const code = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); ({ title: 'x' })`;
    const root = contentRoot({
      'en/script.md': `---js\n${code}\n---\nBody.\n`,
      'en/javascript.md': `---javascript\n${code}\n---\nBody.\n`,
      'en/toml.md': `+++\ntitle = "x"\n+++\nBody.\n`,
    });
    const problems = checkContent(root);
    for (const file of ['script', 'javascript', 'toml'])
      expect(
        problems.some((p) => p.startsWith(`content/blog/en/${file}.md:1: the front matter opens with`)),
        problems.join('\n'),
      ).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  // Issue 31: YAML's own reading rolled 2026-13-01 over into 2027-01-01, which the build took for a scheduled article:
  // never published, and nothing said.
  it('refuses a date that is not on the calendar, with its line, the value as written and how to write one', () => {
    const root = contentRoot({
      'topics.json': '{}\n',
      'ar/month-13.md': front('title: شهر ثالث عشر\ndescription: وصف قصير لكنه أطول من عشرين حرفًا\ndate: 2026-13-01'),
      'en/february-30.md': front(
        'title: February 30\ndescription: A description long enough for the schema.\ndate: 2026-02-30',
      ),
      'en/hour-25.md': front(
        'title: Hour 25\ndescription: A description long enough for the schema.\ndate: 2026-09-14T25:00',
      ),
      'en/updated-bad.md': front(
        'title: Updated\ndescription: A description long enough for the schema.\ndate: 2026-09-14\nupdated: 2026-09-31',
      ),
    });
    const problems = checkContent(root, new Date('2026-11-24T12:00:00Z'));
    for (const pattern of [
      /^content\/blog\/ar\/month-13\.md:4: date: "2026-13-01" is not on the calendar: there is no month 13 .*write it like 2026-09-14/,
      /^content\/blog\/en\/february-30\.md:4: date: "2026-02-30" is not on the calendar: February 2026 has 28 days/,
      /^content\/blog\/en\/hour-25\.md:4: date: "2026-09-14T25:00" is not on the calendar: there is no hour 25/,
      /^content\/blog\/en\/updated-bad\.md:5: updated: "2026-09-31" is not on the calendar: September 2026 has 30 days/,
    ]) {
      expect(
        problems.some((p) => pattern.test(p)),
        `${pattern}\n${problems.join('\n')}`,
      ).toBe(true);
    }
  });

  it('lists what is scheduled with the day and hour it appears, and refuses a date over a year ahead unless it is meant', () => {
    const root = contentRoot({
      'topics.json': '{}\n',
      'en/next-week.md': ok('Next week').replace('date: 2026-10-01', 'date: 2026-12-01'),
      'en/at-nine.md': ok('At nine').replace('date: 2026-10-01', 'date: 2026-11-25T09:00'),
      'en/typo-year.md': ok('Typo year').replace('date: 2026-10-01', 'date: 2062-09-14'),
      'en/meant.md': ok('Meant', 'scheduledFarAhead: true').replace('date: 2026-10-01', 'date: 2028-01-01'),
      'en/draft-later.md': ok('Draft later', 'draft: true').replace('date: 2026-10-01', 'date: 2026-12-24'),
      'en/out.md': ok('Out'),
    });
    const { problems, scheduled } = contentReport(root, new Date('2026-11-24T12:00:00Z'));
    expect(problems).toEqual([
      expect.stringMatching(
        /^content\/blog\/en\/typo-year\.md:4: date: "2062-09-14" is more than a year ahead \(it would appear on 2062-09-14 00:00 Asia\/Riyadh \(2062-09-13 21:00 UTC\)\): if that is meant, add "scheduledFarAhead: true"/,
      ),
    ]);
    expect(scheduled).toEqual([
      'content/blog/en/at-nine.md: appears on 2026-11-25 09:00 Asia/Riyadh (2026-11-25 06:00 UTC)',
      'content/blog/en/next-week.md: appears on 2026-12-01 00:00 Asia/Riyadh (2026-11-30 21:00 UTC)',
      'content/blog/en/meant.md: appears on 2028-01-01 00:00 Asia/Riyadh (2027-12-31 21:00 UTC)',
    ]);
  });

  it("says what is scheduled from the command, in the blog's zone", () => {
    const run = spawnSync(process.execPath, [join(projectRoot, 'scripts/check-content.ts')], {
      env: cleanEnv(),
      encoding: 'utf8',
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Scheduled: nothing .*midnight in Asia\/Riyadh \(content\/blog\/calendar\.json\)/m);
  });
});

// The build keeps what each unchanged article's file said by itself (issue 65: the checks read every article's YAML on
// every build, a second of an editor's one-article rebuild at 2,000 articles a language). Whatever is kept, the
// report is the one the checks make from nothing.
describe('the content checks with what the last build kept', () => {
  const files = {
    'topics.json': '{\n  "privacy": { "en": "Privacy", "ar": "الخصوصية" }\n}\n',
    'en/good.md': `${ok('Good', 'translationKey: pair')}\n## A heading\n\nSee [the topic](/en/blog/topics/privacy).\n`,
    'ar/jayyid.md': `${ok('جيد', 'translationKey: pair')}\n## عنوان فرعي\n\nنص.\n`,
    'en/bad-front.md': front('title: Bad\ndescription: short\ndate: not-a-date\ncolour: red'),
    'en/Bad_Name.md': ok('Bad name'),
    'en/topical.md': `${ok('Topical', 'topics: [privacy, gardening]')}\nSee [gardening](/en/blog/topics/gardening).\n`,
    'en/links.md': `${ok('Links')}\nSee [a heading](/en/blog/good#a-heading) and [none](/en/blog/good#none).\n`,
    'en/script.md': '---js\n({ title: "x" })\n---\nBody.\n',
    'en/next-week.md': ok('Next week').replace('date: 2026-10-01', 'date: 2026-12-01'),
    'en/typo-year.md': ok('Typo year').replace('date: 2026-10-01', 'date: 2028-09-14'),
  };
  const at = new Date('2026-11-24T12:00:00Z');
  const cacheOf = (root: string) => ({ file: join(root, 'verdicts.json'), code: 'the code' });

  it('reports what the checks report without it, first and again, at another moment, and after edits', () => {
    const root = contentRoot(files);
    const cache = cacheOf(root);
    const fresh = (now: Date) => contentReport(root, now);
    expect(contentReport(root, at, cache)).toEqual(fresh(at));
    expect(Object.keys(JSON.parse(readFileSync(cache.file, 'utf8')) as object)).toHaveLength(9);
    const again = contentReport(root, at, cache);
    expect(again).toEqual(fresh(at));
    expect(again.problems.length).toBeGreaterThan(5);
    expect(again.scheduled).toHaveLength(1);
    // A year on: next week is out, and the typo's year is less than a year ahead, so it is scheduled.
    const later = new Date('2027-11-01T12:00:00Z');
    expect(contentReport(root, later, cache)).toEqual(fresh(later));
    expect(contentReport(root, later, cache).scheduled).toEqual([expect.stringContaining('typo-year.md')]);
    // An article mended, another broken, the heading a link names renamed, and a topic added to the registry.
    writeFileSync(join(root, 'content/blog/en/bad-front.md'), ok('Mended'));
    writeFileSync(join(root, 'content/blog/ar/jayyid.md'), front('title: جيد\ndescription: قصير\ndate: 2026-10-01'));
    writeFileSync(
      join(root, 'content/blog/en/good.md'),
      `${ok('Good', 'translationKey: pair')}\n## Another heading\n\nText.\n`,
    );
    writeFileSync(
      join(root, 'content/blog/topics.json'),
      '{\n  "privacy": { "en": "Privacy", "ar": "الخصوصية" },\n  "gardening": { "en": "Gardening", "ar": "البستنة" }\n}\n',
    );
    const edited = contentReport(root, at, cache);
    expect(edited).toEqual(fresh(at));
    expect(edited.problems.join('\n')).not.toMatch(/bad-front|gardening/);
    expect(edited.problems.join('\n')).toMatch(/ar\/jayyid\.md:3: description/);
    expect(edited.problems.join('\n')).toMatch(/"\/en\/blog\/good#a-heading": .* has no heading with the anchor/);
  });

  it('checks every file again when the code that checks them changed, and when what was kept cannot be read', () => {
    const root = contentRoot(files);
    const cache = cacheOf(root);
    contentReport(root, at, cache);
    // What was kept says, wrongly, that every file is fine: another code's verdicts, or a corrupt file, are not used.
    const kept = JSON.parse(readFileSync(cache.file, 'utf8')) as Record<string, { problems: unknown[] }>;
    for (const verdict of Object.values(kept)) verdict.problems = [];
    writeFileSync(cache.file, JSON.stringify(kept));
    expect(contentReport(root, at, { ...cache, code: 'other code' })).toEqual(contentReport(root, at));
    writeFileSync(cache.file, '{"half');
    expect(contentReport(root, at, cache)).toEqual(contentReport(root, at));
  });
});
