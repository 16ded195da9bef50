// The build's steps after Astro's own (src/integrations/build-step.ts): a step that runs beside the others (the search
// index, while the images are drawn) is waited for by the step that reads what it writes, and its failure fails the
// build there; it is never lost.
import { describe, expect, it } from 'vitest';
import type { AstroIntegrationLogger } from 'astro';
import { besideStep, buildStep } from '../../src/integrations/build-step.ts';

type Hooks = Record<string, (options: unknown) => unknown>;
const said: string[] = [];
const logger = { info: (line: string) => said.push(line) } as unknown as AstroIntegrationLogger;
/** Astro's calls of a step's hooks: its configuration, then the finished build. */
async function built(step: { hooks: unknown }): Promise<void> {
  const hooks = step.hooks as Hooks;
  await hooks['astro:config:done']!({ config: { root: new URL('file:///project/') } });
  await hooks['astro:build:done']!({ dir: new URL('file:///project/dist/client/'), logger });
}

describe('a step beside the others', () => {
  it('lets the steps after it run meanwhile, and the one that reads its output waits for it', async () => {
    const order: string[] = [];
    let finish!: () => void;
    const beside = besideStep('index', async () => {
      order.push('index started');
      await new Promise<void>((resolve) => (finish = resolve));
      order.push('index done');
      return 'indexed';
    });
    const meanwhile = buildStep('images', () => {
      order.push('images');
      return 'drawn';
    });
    const reader = buildStep(
      'compress',
      () => {
        order.push('compress');
        return 'compressed';
      },
      [beside],
    );
    await built(beside);
    await built(meanwhile);
    const compressed = built(reader);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['index started', 'images']);
    finish();
    await compressed;
    expect(order).toEqual(['index started', 'images', 'index done', 'compress']);
    expect(said.some((line) => /^indexed in \d+ ms$/.test(line))).toBe(true);
  });

  it('fails the build at the step that waits for it, which does not run', async () => {
    let ran = false;
    const beside = besideStep('index', () => Promise.reject(new Error('Pagefind: no pages')));
    const reader = buildStep(
      'compress',
      () => {
        ran = true;
        return 'compressed';
      },
      [beside],
    );
    await built(beside);
    await expect(built(reader)).rejects.toThrow('Pagefind: no pages');
    expect(ran).toBe(false);
  });
});
