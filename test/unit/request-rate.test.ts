// The per-client request rate (sidecar/admission/clients.ts RequestRate): as nginx's `limit_req … burst=N nodelay`,
// the request the rate allows now and N more at once, then the rate; each client its own bucket.
import { describe, expect, it } from 'vitest';
import { RequestRate } from '../../sidecar/admission/clients.ts';

describe('the per-client request rate', () => {
  it('lets the burst and one through at once, then one a 1/rate second', () => {
    const rate = new RequestRate({ ratePerSecond: 10, burst: 5 });
    const at = (now: number, n: number) => Array.from({ length: n }, () => rate.take('a', now));
    expect(at(0, 7)).toEqual([true, true, true, true, true, true, false]);
    // A tenth of a second gives one back; half a second, five.
    expect(at(100, 2)).toEqual([true, false]);
    expect(at(600, 6)).toEqual([true, true, true, true, true, false]);
    // Another client is not touched by it.
    expect(rate.take('b', 600)).toBe(true);
  });

  it('past 10,000 clients (when it sweeps), a client whose bucket has refilled still has its whole burst', () => {
    const rate = new RequestRate({ ratePerSecond: 10, burst: 2 });
    for (let i = 0; i < 10_001; i++) rate.take(`c${i}`, 0);
    // Past 10,000 clients, a second later (every bucket full again): the sweep runs, and c0 has its whole bucket.
    expect([rate.take('c0', 1000), rate.take('c0', 1000), rate.take('c0', 1000), rate.take('c0', 1000)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});
