// The order in which waiting clients get a freed slot (sidecar/admission/fair-slots.ts): the render queue's, /mcp's and the
// decompression slots'. Told by the order of grants, with no clock.
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
});
