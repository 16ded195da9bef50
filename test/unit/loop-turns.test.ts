// The event loop's turns shared between clients (sidecar/admission/loop-turns.ts, issue 46), with the real count of requests in
// progress and the real loop: what a reader on another address gains is measured by `npm run bench -- --fair` (a burst
// of 320 live pages from five addresses held the loop up to 105 ms, and the reader's cached page waited behind it).
import { describe, expect, it } from 'vitest';
import { RequestsInProgress } from '../../sidecar/admission/clients.ts';
import { LIMITS } from '../../sidecar/admission/limits.ts';
import { LoopTurns } from '../../sidecar/admission/loop-turns.ts';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The turns over a real count of requests in progress: `arrive` counts a request of `client` in and hands it to the
 * turns, which record `label` when they start it; `turnsUntil` lets the loop turn until `n` have started (100 at most).
 */
function turnsOfTheLoop<T>() {
  const requests = new RequestsInProgress(1000);
  const turns = new LoopTurns(requests, {
    requestsPerTurn: LIMITS.requestsPerTurn.default,
    lightRequests: LIMITS.lightRequests.default,
    lightRequestsPerTurn: LIMITS.lightRequestsPerTurn.default,
  });
  const started: T[] = [];
  return {
    requests,
    started,
    arrive(client: string, label: T) {
      requests.enter(client);
      turns.start(client, () => started.push(label));
    },
    async turnsUntil(n: number) {
      for (let turn = 0; turn < 100 && started.length < n; turn++) await nextTurn();
    },
  };
}

describe("the event loop's turns", () => {
  it("start a browser's requests in the turn they are read in", async () => {
    const { arrive, started } = turnsOfTheLoop<number>();
    for (let i = 0; i < LIMITS.lightRequests.default; i++) arrive('browser', i);
    await nextTurn();
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("start two of a client's requests read in one turn at once, and another client's read in that turn before the rest", async () => {
    // Nine hundred connections from each of five addresses, each asking a live page now and then: each address was
    // light (six requests in progress at most), but the requests that arrived while the loop was busy were read in one
    // turn and all started in it, each read from the database there, and a reader read in the same turn waited behind
    // them (the fairness bench's "connections": the reader's cached p99 18-24 ms, its baseline 4-8).
    const { arrive, started } = turnsOfTheLoop<string>();
    for (let i = 0; i < 5; i++) arrive('127.0.2.1', `attacker ${i}`);
    arrive('127.0.3.1', 'reader');
    expect(started).toEqual(['attacker 0', 'attacker 1', 'reader']);
    // The rest in the same turn of the loop, once what it read has started.
    await nextTurn();
    expect(started).toEqual(['attacker 0', 'attacker 1', 'reader', 'attacker 2', 'attacker 3', 'attacker 4']);
  });

  it("start a heavy client's burst a few a turn, so that a request arriving meanwhile waits for a few, not for all", async () => {
    const { arrive, started, turnsUntil } = turnsOfTheLoop<string>();
    // Sixty-four requests of one client read in one turn of the loop.
    for (let i = 0; i < 64; i++) arrive('127.0.2.1', `heavy ${i}`);
    expect(started.length).toBeLessThanOrEqual(LIMITS.lightRequests.default);
    // A reader's request, read in the loop's next turn, is started then: after a few of the burst, not after all.
    await nextTurn();
    arrive('127.0.3.1', 'reader');
    expect(started.indexOf('reader')).toBeGreaterThan(-1);
    expect(started.indexOf('reader')).toBeLessThan(24);
    // The burst is started whole in the turns after, in its order.
    await turnsUntil(65);
    expect(started.filter((s) => s !== 'reader')).toEqual(Array.from({ length: 64 }, (_, i) => `heavy ${i}`));
  });

  it("start one client's requests in the order they came, though it is light again by the time the next comes", async () => {
    // Pipelined on one connection, a later request started first answers first, and its answer waits behind the earlier
    // one's: with /mcp's four slots held so by a flood's later requests, whose earlier ones waited for a slot, the
    // slots were stuck until the send timeout, and another reader's MCP call waited 9.2 s (the fairness bench).
    const { arrive, requests, started, turnsUntil } = turnsOfTheLoop<number>();
    for (let i = 0; i < 8; i++) arrive('127.0.2.1', i);
    // Three of its requests are answered: it has five in progress again, two of them still waiting for a turn.
    for (let i = 0; i < 3; i++) requests.leave('127.0.2.1');
    arrive('127.0.2.1', 8);
    await turnsUntil(9);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('take heavy clients in turn: one burst does not wait behind another', async () => {
    const { arrive, started, turnsUntil } = turnsOfTheLoop<string>();
    for (const client of ['127.0.2.1', '127.0.2.2']) for (let i = 0; i < 32; i++) arrive(client, client);
    await turnsUntil(64);
    expect(started.length).toBe(64);
    // Past each client's first (light) requests, the two alternate.
    const heavy = started.slice(2 * LIMITS.lightRequests.default);
    const firstHalf = heavy.slice(0, heavy.length / 2);
    expect(firstHalf.filter((c) => c === '127.0.2.2').length).toBeGreaterThanOrEqual(firstHalf.length / 2 - 1);
  });
});
