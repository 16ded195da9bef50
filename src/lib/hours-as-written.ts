// Hours as people write them (issue 62): "Sat-Thu 7am-11pm", "daily 9-5", "السبت - الخميس ٧ص - ١١م", "Fri closed".
// An import takes only OpenStreetMap's syntax (what is stored is what the owner wrote), but when a value is not that
// syntax and reads as one of these common forms, the refusal says the rule to write instead. Read token by token:
// day names (English, whole or short, and Arabic), 12-hour and 24-hour times (Western or Arabic-Indic digits),
// "daily", "24/7", "closed", "to"/"until"/"إلى"; anything else and there is no suggestion.

const DAY_NAMES: [RegExp, string][] = [
  [/^(monday|mon|mo|(?:و\s?)?(?:ال)?[اإ]ثنين)/iu, 'Mo'],
  [/^(tuesday|tues|tue|tu|(?:و\s?)?(?:ال)?ثلاثاء)/iu, 'Tu'],
  [/^(wednesday|wed|we|(?:و\s?)?(?:ال)?[أا]ربعاء)/iu, 'We'],
  [/^(thursday|thurs|thur|thu|th|(?:و\s?)?(?:ال)?خميس)/iu, 'Th'],
  [/^(friday|fri|fr|(?:و\s?)?(?:ال)?جمعة)/iu, 'Fr'],
  [/^(saturday|sat|sa|(?:و\s?)?(?:ال)?سبت)/iu, 'Sa'],
  [/^(sunday|sun|su|(?:و\s?)?(?:ال)?[أا]حد)/iu, 'Su'],
];

type Token =
  | { kind: 'day'; code: string }
  | { kind: 'time'; minutes: number }
  | { kind: 'dash' | 'comma' | 'separator' | 'off' | 'daily' | 'always' };

/** After a word: not followed by another letter or digit. */
const END = '(?![\\p{L}\\p{N}])';
const WORDS: [RegExp, Token | null][] = [
  [new RegExp(`^(24\\s*/\\s*7|24\\s*hours|open\\s*24\\s*hours|24\\s*ساعة)${END}`, 'iu'), { kind: 'always' }],
  [new RegExp(`^(daily|every\\s*day|all\\s*week|يومياً|يوميا|كل\\s*يوم)${END}`, 'iu'), { kind: 'daily' }],
  [new RegExp(`^(closed|off|مغلقة|مغلق)${END}`, 'iu'), { kind: 'off' }],
  [new RegExp(`^(to|till|until|through|thru|إلى|الى|حتى)${END}`, 'iu'), { kind: 'dash' }],
  [/^[-–—]/u, { kind: 'dash' }],
  [new RegExp(`^(and|&|و)${END}`, 'iu'), { kind: 'comma' }],
  [/^[,،]/u, { kind: 'comma' }],
  [/^[;\n|]/u, { kind: 'separator' }],
  [new RegExp(`^(from|من|open|مفتوح)${END}`, 'iu'), null],
  [new RegExp(`^(noon|الظهر)${END}`, 'iu'), { kind: 'time', minutes: 12 * 60 }],
  [new RegExp(`^(midnight|منتصف\\s*الليل)${END}`, 'iu'), { kind: 'time', minutes: 24 * 60 }],
];
/** The day names, each a whole word. */
const DAYS = DAY_NAMES.map(([pattern, code]) => [new RegExp(pattern.source + END, 'iu'), code] as const);
const TIME = new RegExp(
  `^(\\d{1,2})(?:[:.](\\d{2}))?\\s*(a\\.?m\\.?|p\\.?m\\.?|صباحاً|صباحا|ص|مساءً|مساء|م)?${END}`,
  'iu',
);

function tokens(text: string): Token[] | undefined {
  const found: Token[] = [];
  let rest = text
    // Arabic-Indic and Eastern Arabic-Indic digits.
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06f0-\u06f9]/g, (d) => String(d.charCodeAt(0) - 0x06f0))
    .trim();
  while (rest.length > 0) {
    rest = rest.replace(/^[ \t\r.:]+/, '');
    if (rest.length === 0) break;
    const time = TIME.exec(rest);
    if (time) {
      let hour = Number(time[1]);
      const minute = Number(time[2] ?? 0);
      const half = time[3]?.toLowerCase();
      if (hour > 24 || minute > 59) return undefined;
      if (half) {
        if (hour < 1 || hour > 12) return undefined;
        const pm = /^(p|م)/.test(half);
        hour = (hour % 12) + (pm ? 12 : 0);
      }
      found.push({ kind: 'time', minutes: hour * 60 + minute });
      rest = rest.slice(time[0].length);
      continue;
    }
    const word = WORDS.find(([pattern]) => pattern.test(rest));
    if (word) {
      if (word[1]) found.push(word[1]);
      rest = rest.slice(word[0].exec(rest)![0].length);
      continue;
    }
    const day = DAYS.map(([pattern, code]) => [pattern.exec(rest), code] as const).find(([match]) => match);
    if (day) {
      found.push({ kind: 'day', code: day[1] });
      rest = rest.slice(day[0]![0].length);
      continue;
    }
    return undefined;
  }
  return found;
}

const clock = (minutes: number) =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/**
 * The OpenStreetMap rule `text` means, when it is written in one of the common forms above; otherwise undefined.
 * Groups are joined by `;` (a later day's rule replaces an earlier one's, as in the syntax); a time that ends at or
 * before it starts runs past midnight (an end at 12am is 24:00).
 */
export function hoursAsWritten(text: string): string | undefined {
  if (text.length > 255) return undefined;
  const list = tokens(text);
  if (!list || list.length === 0) return undefined;
  const groups: string[] = [];
  let i = 0;
  const at = (n: number) => list[n];
  while (i < list.length) {
    while (at(i)?.kind === 'separator' || at(i)?.kind === 'comma') i++;
    if (i >= list.length) break;
    // The days: names and ranges, "daily", or none (every day).
    const days: string[] = [];
    if (at(i)?.kind === 'daily') {
      days.push('Mo-Su');
      i++;
    } else {
      while (at(i)?.kind === 'day') {
        const first = (at(i) as { code: string }).code;
        const last = at(i + 1)?.kind === 'dash' && at(i + 2)?.kind === 'day' ? (at(i + 2) as { code: string }) : null;
        days.push(last ? `${first}-${last.code}` : first);
        i += last ? 3 : 1;
        if (at(i)?.kind === 'comma' && at(i + 1)?.kind === 'day') i++;
      }
    }
    // The times: ranges, "closed", or 24/7.
    const times: string[] = [];
    if (at(i)?.kind === 'off') {
      times.push('off');
      i++;
    } else if (at(i)?.kind === 'always') {
      times.push(days.length === 0 ? '24/7' : '00:00-24:00');
      i++;
    } else {
      while (at(i)?.kind === 'time' && at(i + 1)?.kind === 'dash' && at(i + 2)?.kind === 'time') {
        const from = (at(i) as { minutes: number }).minutes % (24 * 60);
        const end = (at(i + 2) as { minutes: number }).minutes;
        times.push(`${clock(from)}-${clock(end === 0 ? 24 * 60 : end)}`);
        i += 3;
        if (at(i)?.kind === 'comma' && at(i + 1)?.kind === 'time') i++;
      }
    }
    if (times.length === 0) return undefined;
    groups.push(days.length === 0 ? times.join(',') : `${days.join(',')} ${times.join(',')}`);
  }
  return groups.length > 0 ? groups.join('; ') : undefined;
}
