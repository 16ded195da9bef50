// The event loop's turns shared between clients (issue 46). Node reads every request that has arrived in one turn of
// its loop and starts them all before it looks at the network again: sixty-four requests a client arriving together
// from five addresses (320 live pages, each read from the database in that turn) held the loop 50 to 110 ms at a
// time, and a reader on another address, asking one cached page, waited behind all of them (its p99 ten times its
// baseline). A client with more requests in progress than a browser opens connections to one host is started in
// turns instead: a few requests a turn, one client's after another's, the network looked at between turns. A light
// client (a person's browser, an agent, a crawler asking one page at a time) has two of the requests read in one turn
// started at once, and the rest later in that same turn, after every other client's: requests of many connections
// from one address, each light, arrive together after any stall, and started together they held the loop as a
// burst does.
import type { RequestsInProgress } from './clients.ts';
import type { Limits } from './limits.ts';

/**
 * The turns' limits (admission/limits.ts): requests of heavy clients started in one turn of the loop (a few
 * milliseconds of work at most); the requests in progress a client may have and count as light; and of a light
 * client's requests read in one turn, those started at once (the rest wait in its line, for after every other
 * client's read then).
 */
export type TurnLimits = Pick<Limits, 'requestsPerTurn' | 'lightRequests' | 'lightRequestsPerTurn'>;

export class LoopTurns {
  readonly #requests: Pick<RequestsInProgress, 'of'>;
  readonly #limits: TurnLimits;
  /** The requests waiting, by client; a Map keeps insertion order, and a client served goes to the end. */
  readonly #lines = new Map<string, (() => void)[]>();
  #scheduled = false;
  /** Requests started at once in this turn of the loop, by client (forgotten at the turn's end). */
  readonly #startedNow = new Map<string, number>();

  constructor(requests: Pick<RequestsInProgress, 'of'>, limits: TurnLimits) {
    this.#requests = requests;
    this.#limits = limits;
  }

  /** Starts `start` now, or, for a client with many requests in progress, in its turn. */
  start(client: string, start: () => void): void {
    const line = this.#lines.get(client);
    // Behind its own requests still waiting, whatever it holds now: pipelined on one connection, a later request
    // started first answered first and waited behind the earlier one, holding what it held (/mcp's four slots, all
    // held so for a flood's ten-second send timeout while another reader's call waited 9.2 s).
    const now = this.#startedNow.get(client) ?? 0;
    if (!line && this.#requests.of(client) <= this.#limits.lightRequests && now < this.#limits.lightRequestsPerTurn) {
      if (this.#startedNow.size === 0) setImmediate(() => this.#startedNow.clear());
      this.#startedNow.set(client, now + 1);
      return start();
    }
    if (line) line.push(start);
    else this.#lines.set(client, [start]);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#turn);
    }
  }

  readonly #turn = () => {
    for (let started = 0; started < this.#limits.requestsPerTurn && this.#lines.size > 0; started++) {
      const [client, line] = this.#lines.entries().next().value!;
      this.#lines.delete(client);
      const start = line.shift()!;
      if (line.length > 0) this.#lines.set(client, line);
      start();
    }
    this.#scheduled = this.#lines.size > 0;
    // The next turn after the network has been looked at (an immediate set now runs in the loop's next turn).
    if (this.#scheduled) setImmediate(this.#turn);
  };
}
