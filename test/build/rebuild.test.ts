// The build's caches never serve a changed input stale. A copy of the project is built, then rebuilt after an editor's
// change (one article's text, another's title), then after a change to the code that makes the Markdown twins:
// what changed is new everywhere it shows (the page, its twin and their compressed copies, the pages that list or
// link it, its Open Graph image), what did not is reused from the cache (Astro's incremental build, the twins, the
// compressed copies, the images), and a change of code makes its step's output again. The rebuild after the editor's
// change is compared byte for byte with the same inputs built with every cache emptied (issue 65). An article removed leaves
// nothing behind, and a build stopped while it was making pages costs the next one a full build, never a stale page.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder } from '../../src/lib/files.ts';
import { cleanEnv, projectRoot } from '../helpers/env.ts';

let dir: string;
const logs: string[] = [];
const snapshots: Record<string, string>[] = [];
const WATCHED = [
  'en/blog/link-in-bio-that-works.html',
  'en/blog/link-in-bio-that-works.md',
  'en/blog/qr-or-nfc-business-card.html',
  'en/blog/what-your-public-page-reveals.html',
  'en/blog.html',
  'en/blog.md',
  'en/blog/topics/qr-codes.html',
  'ar/blog/bitaqat-qr-am-nfc.html',
];

/**
 * Every file under `root` (relative path) and the SHA-256 of its bytes; the build manifest's without its moment
 * (`builtAt`), which every build has its own.
 */
function treeHashes(root: string): Map<string, string> {
  return new Map(
    filesUnder(root).map((file) => {
      let bytes = readFileSync(join(root, file));
      if (file === 'build-manifest.json')
        bytes = Buffer.from(JSON.stringify({ ...JSON.parse(bytes.toString()), builtAt: undefined }));
      return [file, createHash('sha256').update(bytes).digest('hex')];
    }),
  );
}
/**
 * The key Astro's server code is built with (its server islands' and actions' encryption): a build without one makes
 * a key of its own and keeps it in its cache, so two builds from empty caches differ by it alone. Given here, as an
 * operator would give ASTRO_KEY to builds that must agree.
 */
const ASTRO_KEY = Buffer.alloc(32, 7).toString('base64');
/** The built site after the editor's change (build 2), and the same inputs built with every cache empty. */
let rebuilt: Map<string, string>;
let full: Map<string, string>;

/** Builds the copy; `recorded`: its log and what it made are kept for the tests below (by build number). */
function build(recorded = true): void {
  const result = spawnSync(process.execPath, [join(projectRoot, 'node_modules/astro/bin/astro.mjs'), 'build'], {
    cwd: dir,
    env: cleanEnv({ ASTRO_KEY }),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(result.status, result.stdout.slice(-2000) + result.stderr.slice(-2000)).toBe(0);
  if (!recorded) return;
  logs.push(result.stdout);
  snapshots.push(Object.fromEntries(WATCHED.map((f) => [f, readFileSync(join(dir, 'dist/client', f), 'utf8')])));
  searchable.push(Object.fromEntries(['ar', 'en'].map((lang) => [lang, indexedText(lang)])));
  shortLived.push(SHORT_LIVED_FILES.filter((file) => existsSync(join(dir, 'dist/client', file))));
}
const SHORT_LIVED = 'content/blog/en/a-short-lived-article.md';
const SHORT_LIVED_FILES = ['html', 'md', 'html.br', 'html.gz'].map((ext) => `en/blog/a-short-lived-article.${ext}`);
/** The text each build's search index holds, by language: every fragment of its bundle (gzipped JSON), in order. */
const searchable: Record<string, string>[] = [];
function indexedText(lang: string): string {
  const folder = join(dir, 'dist/client/pagefind', lang, 'fragment');
  return readdirSync(folder)
    .sort()
    .map((f) => gunzipSync(readFileSync(join(folder, f))).toString())
    .join('\n');
}
/** Which of the short-lived article's files each build left in dist/. */
const shortLived: string[][] = [];
/** Where Astro's incremental build keeps its copy of each page (astro/dist/core/build/incremental.js). */
const ASTRO_STORED = '.cache/astro/dist/client';
const client = (file: string) => join(dir, 'dist/client', file);
const edit = (file: string, change: (text: string) => string) =>
  writeFileSync(join(dir, file), change(readFileSync(join(dir, file), 'utf8')));
const count = (log: string, pattern: RegExp) => Number(pattern.exec(log)?.[1] ?? NaN);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rebuild-'));
  for (const entry of ['src', 'content', 'public', 'astro.config.mjs', 'package.json', 'tsconfig.json'])
    cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(
    join(dir, SHORT_LIVED),
    '---\ntitle: A short-lived article\ndescription: Published once, then removed.\ndate: 2026-10-01\ntopics: [privacy]\n---\n\nIt was here once.\n',
  );
  build();
  rmSync(join(dir, SHORT_LIVED));
  edit('content/blog/en/link-in-bio-that-works.md', (md) =>
    md.replace(
      'They give the page a few seconds.',
      'They give the page a few seconds. A sentence added by the editor.',
    ),
  );
  edit('content/blog/en/qr-or-nfc-business-card.md', (md) =>
    md.replace(/^title: .*$/m, 'title: A retitled article on QR and NFC'),
  );
  build();
  // The same inputs built from nothing, in the same folder (the server's bundle names its paths): every build cache
  // emptied. What the rebuild made must be what a full build makes.
  rebuilt = treeHashes(join(dir, 'dist'));
  rmSync(join(dir, '.cache'), { recursive: true, force: true });
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  build(false);
  full = treeHashes(join(dir, 'dist'));
  // The code that makes the twins: headings underlined (setext) instead of marked with # (atx).
  edit('src/lib/markdown.ts', (ts) => ts.replace("headingStyle: 'atx'", "headingStyle: 'setext'"));
  build();
  // A build that stopped while making pages: Astro's stored copy of a page changed (pages are written through to it)
  // and the mark its pages were linked under left behind.
  writeFileSync(
    join(dir, ASTRO_STORED, 'en/blog/qr-or-nfc-business-card.html'),
    readFileSync(client('en/blog/qr-or-nfc-business-card.html'), 'utf8').replace(
      '</main>',
      '<p>Written by a build that never finished.</p></main>',
    ),
  );
  writeFileSync(join(dir, '.cache/astro/pages-linked'), '');
  build();
}, 480_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a rebuild after an editor’s change', () => {
  it('shows the new text in the page, its twin and their compressed copies', () => {
    expect(snapshots[1]!['en/blog/link-in-bio-that-works.html']).toContain('A sentence added by the editor.');
    expect(snapshots[1]!['en/blog/link-in-bio-that-works.md']).toContain('A sentence added by the editor.');
    expect(brotliDecompressSync(readFileSync(client('en/blog/link-in-bio-that-works.html.br'))).toString()).toContain(
      'A sentence added by the editor.',
    );
  });

  it('shows the new title wherever the article is listed or linked, with an Open Graph image of its own', () => {
    for (const file of [
      'en/blog/qr-or-nfc-business-card.html',
      'en/blog.html',
      'en/blog.md',
      'en/blog/topics/qr-codes.html',
    ]) {
      expect(snapshots[1]![file], file).toContain('A retitled article on QR and NFC');
      expect(snapshots[1]![file], file).not.toContain('QR code or NFC? Choosing');
    }
    // Its neighbour in the list links it by its title.
    expect(snapshots[1]!['en/blog/what-your-public-page-reveals.html']).toContain('A retitled article on QR and NFC');
    const image = (html: string) =>
      /<meta property="og:image" content="[^"]*(\/_astro\/og-[^"]+\.png)"/.exec(html)?.[1];
    const before = image(snapshots[0]!['en/blog/qr-or-nfc-business-card.html']!);
    const after = image(snapshots[1]!['en/blog/qr-or-nfc-business-card.html']!);
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    expect(existsSync(client(after!.slice(1)))).toBe(true);
  });

  it('reuses what did not change: pages, twins, compressed copies and images', () => {
    expect(snapshots[1]!['ar/blog/bitaqat-qr-am-nfc.html']).toBe(snapshots[0]!['ar/blog/bitaqat-qr-am-nfc.html']);
    const log = logs[1]!;
    expect((log.match(/\((?:restored|cached)\)/g) ?? []).length).toBeGreaterThan(5);
    expect(count(log, /Markdown twins \((\d+) from the build cache\)/)).toBeGreaterThan(10);
    expect(count(log, /gzip and brotli; (\d+) from the build cache/)).toBeGreaterThan(10);
    expect(count(log, /\b(\d+) reused from the cache/)).toBeGreaterThan(10);
    expect(count(log, /\b(\d+) Open Graph images drawn/)).toBe(1);
  });
});

describe('a rebuild and a full build of the same inputs', () => {
  it('are the same, byte for byte: every file of the site and of the server, none more, none less', () => {
    const differ = [...new Set([...rebuilt.keys(), ...full.keys()])].filter(
      (file) => rebuilt.get(file) !== full.get(file),
    );
    expect(differ).toEqual([]);
    expect(rebuilt.size).toBeGreaterThan(100);
  });

  it("list the server's static files in order, not in the order a walk of the folder met them", () => {
    // One build from nothing in sixteen listed them otherwise than the rest (an operator's review): the same inputs
    // made another server bundle.
    const chunks = join(dir, 'dist/server/chunks');
    const lists = readdirSync(chunks)
      .map((f) => /"assets":(\[[^\]]*\])/.exec(readFileSync(join(chunks, f), 'utf8'))?.[1])
      .filter((list) => list !== undefined)
      .map((list) => JSON.parse(list) as string[]);
    expect(lists.length).toBeGreaterThan(0);
    for (const list of lists) {
      expect(list.length).toBeGreaterThan(10);
      expect(list).toEqual([...list].sort());
    }
  });
});

describe('the search index after an editor’s change', () => {
  it('indexes the new text, and makes again only the edited language’s index', () => {
    expect(searchable[1]!.en).toContain('A sentence added by the editor.');
    expect(searchable[0]!.en).not.toContain('A sentence added by the editor.');
    expect(searchable[1]!.en).toContain('A retitled article on QR and NFC');
    expect(searchable[1]!.ar).toBe(searchable[0]!.ar);
    expect(logs[1]).toMatch(/search index of \d+ articles \(\d+ files; ar unchanged, from the build cache\)/);
  });
});

describe('a rebuild after an article was removed', () => {
  it('leaves nothing of it in the build: page, twin, compressed copies, lists', () => {
    expect(snapshots[0]!['en/blog.html']).toContain('A short-lived article');
    expect(shortLived[0]).toEqual(SHORT_LIVED_FILES);
    expect(snapshots[1]!['en/blog.html']).not.toContain('A short-lived article');
    expect(shortLived[1]).toEqual([]);
    expect(existsSync(join(dir, ASTRO_STORED, 'en/blog/a-short-lived-article.html'))).toBe(false);
  });
});

describe('a rebuild after a build that stopped while making pages', () => {
  it('makes every page again instead of trusting what the stopped build may have written', () => {
    expect(logs[3]).toContain('every page is made again');
    expect(logs[3]).not.toMatch(/\((?:restored|cached)\)/);
    expect(snapshots[3]!['en/blog/qr-or-nfc-business-card.html']).not.toContain(
      'Written by a build that never finished.',
    );
    expect(existsSync(join(dir, '.cache/astro/pages-linked'))).toBe(false);
  });
});

describe('a rebuild after a change to the code of a step', () => {
  it('makes that step’s output again instead of reusing it', () => {
    expect(count(logs[2]!, /Markdown twins \((\d+) from the build cache\)/)).toBe(0);
    expect(snapshots[1]!['en/blog.md']).toMatch(/^# Blog$/m);
    expect(snapshots[2]!['en/blog.md']).toMatch(/^Blog\n====$/m);
  });
});
