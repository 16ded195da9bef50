// A stranger drawn at random (issue 60): no list of attacks names what the next stranger does, so the attacker's
// behaviour is drawn from a space (scripts/fair/stranger.ts: connections, pipelining depth, reading, body pace, header
// size, route kind, one address or five, how it leaves), each draw for a few seconds against one sidecar as
// production runs it, beside an innocent reader on another address. Whatever is drawn, the sidecar lives and the
// reader's cached and static pages and /health are all 200. A failure names its seed and the smallest draw that
// fails; `STRANGER_SEED=N` runs that seed again, and `npm run bench -- --fair --stranger N` draws many more. Draws that
// found something are kept as named attacks (scripts/fair/attacks.ts FOUND), which the fairness suite runs every time.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behaviourArbitrary, describeBehaviour } from '../../scripts/fair/stranger.ts';
import { startShape, type Shape } from '../../scripts/fair/shapes.ts';
import { attackerAddresses, underAttack } from '../../scripts/fair/under-attack.ts';
import { largeDatabase } from '../helpers/large-database.ts';

const PROFILES = 60_000;
const SECONDS = 2;
/** A CI-sized run: a few draws, each at a fifth of the space's connections and depth. */
const DRAWS = 5;
const SCALE = 0.2;
const SEED = Number(process.env.STRANGER_SEED ?? 60);

describe('a stranger drawn at random against one sidecar (sqlite)', () => {
  let shape: Shape;
  beforeAll(async () => {
    shape = await startShape('alone', await largeDatabase('sqlite', PROFILES));
    for (let i = 0; i < 3; i++) await (await fetch(`${shape.url}/p/layla`)).arrayBuffer();
  }, 120_000);
  afterAll(() => shape?.stop());

  it(`${DRAWS} draws (seed ${SEED}): the sidecar lives, and the reader's cached and static pages and /health are 200`, async () => {
    const seen: string[] = [];
    await fc.assert(
      fc.asyncProperty(behaviourArbitrary(SCALE), async (behaviour) => {
        const { reader, attack } = await underAttack({
          url: shape.url,
          attack: JSON.stringify(behaviour),
          seconds: SECONDS,
          profiles: PROFILES,
          attackers: attackerAddresses(5),
        });
        seen.push(`${describeBehaviour(behaviour)}: ${JSON.stringify(attack)}`);
        expect(shape.alive(), describeBehaviour(behaviour)).toBe(true);
        for (const kind of ['cached', 'static', 'health'] as const)
          expect(
            { kind, statuses: reader[kind].statuses },
            `${describeBehaviour(behaviour)}: ${JSON.stringify(reader[kind].why)}`,
          ).toEqual({ kind, statuses: { 200: reader[kind].n } });
      }),
      // One shrink at most: each try is seconds of attack, and the first failing draw is named already.
      { numRuns: DRAWS, seed: SEED, endOnFailure: true },
    );
    expect(seen).toHaveLength(DRAWS);
  }, 120_000);
});
