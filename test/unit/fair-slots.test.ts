// The order in which waiting clients get a freed slot (sidecar/admission/fair-slots.ts): the render queue's, /mcp's and the
// decompression slots'. Told by the order of grants, with no clock.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FairSlots, type Release } from '../../sidecar/admission/fair-slots.ts';

/** Slots of one, and a log of who got it: `request(client)` waits for it, `release()` gives the current one back. */
function oneSlot() {
  const slots = new FairSlots({ capacity: 1, maxWaiting: 100 });
  const granted: string[] = [];
  const held: Release[] = [];
  const counts = new Map<string, number>();
  const request = (client: string) => {
    const n = (counts.get(client) ?? 0) + 1;
    counts.set(client, n);
    void slots.acquire(client).then((release) => {
      granted.push(`${client}${n}`);
      if (release) held.push(release);
    });
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const release = async () => {
    held.shift()!();
    await settle();
  };
  return { request, release, settle, granted };
}

describe('fair slots', () => {
  it('take turns between the clients waiting', async () => {
    const { request, release, settle, granted } = oneSlot();
    request('a');
    for (const client of ['b', 'b', 'b', 'c', 'c', 'c']) request(client);
    await settle();
    for (let i = 0; i < 6; i++) await release();
    expect(granted).toEqual(['a1', 'b1', 'c1', 'b2', 'c2', 'b3', 'c3']);
  });

  it('serve a client that had nothing waiting before clients whose lines were already waiting', async () => {
    // A reader asking one live page while five addresses crawl pictures: behind every crawler's line in rotation, it
    // waited for one render of each (its page at p50 167 ms through the front, `npm run bench -- --fair`). A line
    // that was empty goes first, once (FQ-CoDel's new flows, RFC 8290): a crawler gains nothing by it, since its line
    // is never empty.
    const { request, release, settle, granted } = oneSlot();
    request('a');
    for (const client of ['b', 'b', 'b', 'c', 'c', 'c']) request(client);
    await settle();
    await release();
    await release();
    await release();
    expect(granted).toEqual(['a1', 'b1', 'c1', 'b2']);
    request('r');
    await settle();
    await release();
    await release();
    expect(granted).toEqual(['a1', 'b1', 'c1', 'b2', 'r1', 'c2']);
  });

  it('say beforehand whom they would refuse at once, in any state the clients leave them in', async () => {
    // A render's record is read only when its client would not be refused the render (live-pages.ts
    // refuseBeforeReading): the forecast must be the verdict, or a reader is refused for nothing, or a crawler's reads
    // are spent after all. Clients ask, leave and slots free in any order; before each ask, the forecast is compared
    // with what acquire does at once.
    const step = fc.oneof(
      fc.record({ ask: fc.constantFrom('a', 'b', 'c', 'r') }),
      fc.record({ free: fc.nat(3) }),
      fc.record({ leave: fc.nat(20) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(step, { maxLength: 60 }),
        async (capacity, maxWaiting, steps) => {
          const slots = new FairSlots({ capacity, maxWaiting });
          const held: Release[] = [];
          const leaving: (() => void)[] = [];
          for (const s of steps) {
            if ('ask' in s) {
              const forecast = slots.wouldRefuse(s.ask);
              let gone!: () => void;
              let verdict = 'waiting' as 'refused' | 'granted' | 'waiting';
              void slots.acquire(s.ask, new Promise<void>((left) => (gone = left))).then((release) => {
                if (release) held.push(release);
                if (verdict === 'waiting') verdict = release ? 'granted' : 'refused';
              });
              leaving.push(gone);
              await Promise.resolve();
              await Promise.resolve();
              expect(verdict === 'refused', `${s.ask} forecast ${forecast}`).toBe(forecast);
            } else if ('free' in s) held.splice(s.free, 1)[0]?.();
            else leaving.splice(s.leave, 1)[0]?.();
            await new Promise((resolve) => setImmediate(resolve));
          }
        },
      ),
      { numRuns: 300, seed: 60 },
    );
  });
});
