// Every social network the docs name is drawn with an icon of its own (issue 62: LinkedIn was drawn with the generic
// link icon though the docs said the known ones have theirs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERIC_LINK_ICON, networkIconPath } from '../../src/lib/social-icons.ts';
import { SOCIAL_NETWORKS } from '../../src/lib/social-networks.ts';
import { projectRoot } from '../helpers/env.ts';

describe('social networks and their icons', () => {
  it('draws every network of the list with an icon of its own, and only an unknown one with the generic link', () => {
    const icons = Object.keys(SOCIAL_NETWORKS).map((id) => [id, networkIconPath(id)] as const);
    expect(icons.filter(([, icon]) => icon === GENERIC_LINK_ICON).map(([id]) => id)).toEqual([]);
    // X and its old name share one mark; every other network's is its own.
    expect(new Set(icons.filter(([id]) => id !== 'twitter').map(([, icon]) => icon)).size).toBe(icons.length - 1);
    expect(networkIconPath('someothernetwork')).toBe(GENERIC_LINK_ICON);
  });

  it('names in docs/data.md only networks the list knows', () => {
    const docs = readFileSync(join(projectRoot, 'docs/data.md'), 'utf8').replace(/\s+/g, ' ');
    const named = /the known ones \(`src\/lib\/social-networks\.ts`: ([^…]+), …\)/.exec(docs)?.[1]?.split(', ');
    expect(named?.length).toBeGreaterThan(5);
    expect(named?.filter((name) => !(Object.values(SOCIAL_NETWORKS) as string[]).includes(name))).toEqual([]);
  });
});
