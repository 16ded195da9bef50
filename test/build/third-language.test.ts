// A third language is added where docs/architecture.md says, and nowhere else: a row of the locale table, a
// dictionary, the topics' names and a content folder. The site is built in a scratch copy of the project with French added that way,
// and its pages, twins, hreflang alternates, sitemap entries, feed, OpenAPI enums and MCP tool schemas are found.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocument } from '@mixmark-io/domino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, projectRoot } from '../helpers/env.ts';

let dir: string;
let client: string;
const read = (path: string) => readFileSync(join(client, path), 'utf8');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'third-language-'));
  for (const entry of ['src', 'content', 'public', 'astro.config.mjs', 'package.json', 'tsconfig.json'])
    cpSync(join(projectRoot, entry), join(dir, entry), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));

  // 1. The locale table: one row.
  const locales = join(dir, 'src/lib/locales.ts');
  const table = readFileSync(locales, 'utf8');
  const row =
    "  fr: { dir: 'ltr', ogLocale: 'fr_FR', dateLocale: 'fr-FR', name: 'Français', englishName: 'French', wordsPerMinute: 195 },\n";
  writeFileSync(locales, table.replace(/(export const LOCALES = \{\n)/, `$1${row}`));
  // 2. Its dictionary (the English one with the strings a reader sees first translated).
  const i18n = join(dir, 'src/lib/i18n.ts');
  writeFileSync(
    i18n,
    readFileSync(i18n, 'utf8').replace(
      'const dictionaries: Record<Lang, Dictionary> = {',
      "const fr: Dictionary = { ...en, blogTitle: 'Blogue', readBlog: 'Lire le blogue en français', readThisArticle: 'Lire cet article en français', skipToContent: 'Aller au contenu' };\n\nconst dictionaries: Record<Lang, Dictionary> = { fr,",
    ),
  );
  // 3. The topics' names in it.
  const topicsFile = join(dir, 'content/blog/topics.json');
  const topics = JSON.parse(readFileSync(topicsFile, 'utf8')) as Record<string, Record<string, string>>;
  for (const names of Object.values(topics)) names.fr = names.en!;
  writeFileSync(topicsFile, JSON.stringify(topics, null, 2));
  // 4. Its content folder: one article, a translation of an English one.
  mkdirSync(join(dir, 'content/blog/fr'));
  writeFileSync(
    join(dir, 'content/blog/fr/qr-ou-nfc.md'),
    '---\ntitle: QR ou NFC pour une carte de visite\ndescription: Deux façons d’ouvrir une carte numérique, et quand choisir chacune.\ndate: 2026-10-01\ntranslationKey: qr-nfc-cards\n---\n\nUne carte avec un code QR s’ouvre avec n’importe quel appareil photo.\n',
  );

  const build = spawnSync(join(projectRoot, 'node_modules/.bin/astro'), ['build'], {
    cwd: dir,
    env: cleanEnv({}),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(build.status, build.stdout.slice(-3000) + build.stderr.slice(-3000)).toBe(0);
  client = join(dir, 'dist/client');
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a third language added by the table, a dictionary, the topics’ names and a content folder', () => {
  it('has its homepage, blog index and article, each with its Markdown twin, lang="fr" dir="ltr"', () => {
    for (const page of ['fr', 'fr/blog', 'fr/blog/qr-ou-nfc']) {
      expect(existsSync(join(client, `${page}.html`)), page).toBe(true);
      expect(read(`${page}.md`), page).toMatch(/^---\ntitle: /);
      const doc = createDocument(read(`${page}.html`), true);
      expect(doc.documentElement.getAttribute('lang'), page).toBe('fr');
      expect(doc.documentElement.getAttribute('dir'), page).toBe('ltr');
    }
    expect(read('fr/blog.html')).toContain('QR ou NFC pour une carte de visite');
  });

  it('pairs the translation: hreflang alternates and the switcher on the English article and the French one', () => {
    const en = createDocument(read('en/blog/qr-or-nfc-business-card.html'), true);
    const hreflangs = Array.from(en.querySelectorAll('link[rel="alternate"][hreflang]')).map(
      (l) => `${l.getAttribute('hreflang')} ${l.getAttribute('href')}`,
    );
    expect(hreflangs).toContain('fr http://localhost:8080/fr/blog/qr-ou-nfc');
    expect(en.querySelector('meta[property="og:locale:alternate"][content="fr_FR"]')).not.toBeNull();
    expect(
      Array.from(en.querySelectorAll('.site-header a[hreflang]')).map(
        (a) => `${a.getAttribute('hreflang')} ${a.getAttribute('href')}`,
      ),
    ).toEqual(expect.arrayContaining(['fr /fr/blog/qr-ou-nfc', 'ar /ar/blog/bitaqat-qr-am-nfc']));
    const fr = createDocument(read('fr/blog/qr-ou-nfc.html'), true);
    expect(fr.querySelector('meta[property="og:locale"]')?.getAttribute('content')).toBe('fr_FR');
    expect(
      Array.from(fr.querySelectorAll('link[rel="alternate"][hreflang]')).map((l) => l.getAttribute('hreflang')),
    ).toEqual(expect.arrayContaining(['fr', 'en', 'ar', 'x-default']));
  });

  it('lists its pages in the sitemap with their alternates, and has a feed', () => {
    const sitemap = read('sitemap.xml');
    expect(sitemap).toContain('<loc>http://localhost:8080/fr/blog/qr-ou-nfc</loc>');
    expect(sitemap).toContain('hreflang="fr" href="http://localhost:8080/fr/blog/qr-ou-nfc"');
    expect(read('fr/blog/rss.xml')).toContain('<link>http://localhost:8080/fr/blog/qr-ou-nfc</link>');
    expect(read('llms.txt')).toContain('Lire le blogue en français');
  });

  it('offers the language in OpenAPI’s enums and the MCP tools’ schemas', () => {
    const openapi = JSON.parse(read('openapi.json')) as {
      components?: unknown;
      paths: Record<string, Record<string, { parameters?: { name: string; schema: { enum?: string[] } }[] }>>;
    };
    const langParam = openapi.paths['/{lang}/blog']?.get?.parameters?.find((p) => p.name === 'lang');
    expect(langParam?.schema.enum).toEqual(['fr', 'ar', 'en']);
    const card = JSON.parse(read('.well-known/mcp/server-card.json')) as {
      tools: { name: string; inputSchema: { properties: { lang?: { enum?: string[]; description?: string } } } }[];
    };
    const list = card.tools.find((t) => t.name === 'list_blog_articles');
    expect(list?.inputSchema.properties.lang?.enum).toEqual(['fr', 'ar', 'en']);
    expect(list?.inputSchema.properties.lang?.description).toContain('"fr" (French)');
  });

  it('says so wherever agents read what the site is: no document still calls the blog bilingual or names two languages', () => {
    const twoLanguages =
      /bilingual|both languages|two languages|Arabic and English|English and Arabic|Arabic or English/i;
    const documents = [
      'openapi.json',
      '.well-known/mcp/server-card.json',
      '.well-known/ai-catalog.json',
      'llms.txt',
      'auth.md',
      '.well-known/agent-skills/read-the-blog/SKILL.md',
      '.well-known/agent-skills/read-profiles-and-cards/SKILL.md',
    ];
    // The three named together are right; two named alone, or "both", are what was written by hand.
    for (const file of documents)
      expect(read(file).replace(/French, Arabic (and|or) English/g, ''), file).not.toMatch(twoLanguages);
    for (const file of ['openapi.json', '.well-known/mcp/server-card.json', 'llms.txt', 'auth.md'])
      expect(read(file), file).toContain('French, Arabic and English');
    // The MCP server's instructions, from the copy's own modules as the sidecar loads them.
    const instructions = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { mcpInstructions } from ${JSON.stringify(join(dir, 'src/lib/agent-discovery.ts'))}; console.log(mcpInstructions({ serviceName: 'Bio Cards' }));`,
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(instructions.stderr).toBe('');
    expect(instructions.stdout).toContain('a blog in French, Arabic and English');
  });
});
