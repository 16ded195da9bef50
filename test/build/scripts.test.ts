// The scripts every page loads, as the build serves them: minified (a phone downloads them on every first visit),
// with the surface's constants filled in. What they do is tested in Chromium (test/browser).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBuilt } from '../helpers/dist.ts';
import { projectRoot } from '../helpers/env.ts';
import { LANGS, ROUTES } from '../../src/lib/surface.ts';

describe('/global-scripts/webmcp.js', () => {
  const built = readBuilt('/global-scripts/webmcp.js');
  const source = readFileSync(join(projectRoot, 'src/scripts/webmcp.js'), 'utf8');

  it('is minified: no comments, no indentation, at most two thirds of its source', () => {
    expect(built.length).toBeLessThan((source.length * 2) / 3);
    expect(built).not.toMatch(/^[ \t]*\/\//m);
    expect(built).not.toMatch(/\/\*/);
    expect(built).not.toMatch(/\n {2,}/);
  });

  it('still carries the surface constants and the six tool names', () => {
    for (const lang of LANGS) expect(built).toContain(JSON.stringify(lang));
    expect(built).toContain(JSON.stringify(ROUTES.getProfilePage.path));
    for (const tool of [
      'open_profile',
      'open_digital_card',
      'read_page',
      'list_blog_articles',
      'navigate',
      'switch_language',
    ])
      expect(built).toContain(tool);
  });
});
