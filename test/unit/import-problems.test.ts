// An import says every problem of a file in one run, each with the shape that would be taken (issue 62: a café's file
// took three runs, the section key refused only after the slug was fixed; `geo` as a string said "expected object,
// received string", a gradient as a bare list "Invalid input").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateImport } from '../../sidecar/store/import-format.ts';
import { projectRoot } from '../helpers/env.ts';

describe("an import's problems", () => {
  it('are all said in one run: fields, keys across a record, and ids across records', () => {
    const validated = validateImport(
      {
        profiles: [
          {
            slug: 'Bad Slug!',
            name: 'Café',
            lang: 'en',
            links: [{ title: 'Menu', url: 'https://example.com/menu', section: 'Drinks' }],
            place: { geo: '24.69,46.68', address: 'Olaya Street' },
            theme: { background: ['#fde2f3', '#e0c3fc'] },
            translations: { ar: { name: 'مقهى', sections: { Food: 'طعام' } } },
          },
          { slug: 'second', name: 'S', lang: 'en' },
          { slug: 'second', name: 'S2', lang: 'en' },
        ],
        aliases: [{ alias: 'nope', page: 'missing' }],
      },
      () => false,
    );
    expect(validated.ok ? [] : validated.errors).toEqual([
      expect.stringMatching(/^profiles\[0\] \(slug "Bad Slug!"\)\.slug "Bad Slug!": must be 1–64 lowercase/),
      'profiles[0] (slug "Bad Slug!").place.geo "24.69,46.68": must be { "lat": 24.6942, "lon": 46.6853 } (two numbers)',
      'profiles[0] (slug "Bad Slug!").theme.background: must be a colour ("#fdf6ec"), { "gradient": ["#fde2f3", ' +
        '"#e0c3fc"] } (two colours, top to foot) or { "image": "images/bg.jpg" }: a gradient\'s two colours go under "gradient"',
      'profiles[0] (slug "Bad Slug!").translations.ar.sections.Food "طعام": names no section of this profile: a ' +
        'section\'s title is translated under its title (one of "Drinks")',
      'profiles[2] (slug "second"): appears twice in this file',
      'aliases[0] (alias "nope").page: no profile "missing" in this file or the database',
    ]);
  });

  it("says a colour's own problem when a background is one colour", () => {
    const validated = validateImport(
      { profiles: [{ slug: 'p', name: 'P', lang: 'en', theme: { background: 'not-a-colour' } }] },
      () => false,
    );
    expect(validated.ok ? [] : validated.errors).toEqual([
      'profiles[0] (slug "p").theme.background "not-a-colour": is not a CSS colour: give one such as "#8b4513" or ' +
        '"rgb(139 69 19)"',
    ]);
  });

  it("says the two labels an owner's choice for AI use takes (issue 63)", () => {
    const validated = validateImport(
      {
        profiles: [
          { slug: 'a', name: 'A', lang: 'en', aiUse: { train: true } },
          { slug: 'b', name: 'B', lang: 'en', aiUse: { search: 'no' } },
          { slug: 'c', name: 'C', lang: 'en', aiUse: true },
        ],
        cards: [{ cardId: 'card1', mode: 'page', name: 'C', aiUse: { 'train-ai': 1 } }],
      },
      () => false,
    );
    const shape = 'must be { "train-ai": true or false, "search": true or false } (either label may be left out)';
    expect(validated.ok ? [] : validated.errors).toEqual([
      `profiles[0] (slug "a").aiUse: ${shape}`,
      'profiles[1] (slug "b").aiUse.search "no": must be true or false',
      `profiles[2] (slug "c").aiUse true: ${shape}`,
      'cards[0] (cardId "card1").aiUse["train-ai"] 1: must be true or false',
    ]);
  });
});

describe("docs/data.md's examples", () => {
  it('each `json` example is a file that imports as it stands (the commented reference is marked `jsonc`)', () => {
    const docs = readFileSync(join(projectRoot, 'docs/data.md'), 'utf8');
    const examples = [...docs.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      const validated = validateImport(JSON.parse(example), () => false);
      expect(validated.ok ? [] : validated.errors, example.slice(0, 80)).toEqual([]);
    }
    expect(docs).toMatch(/^```jsonc\n\{\n {2}"profiles"/m);
  });
});
