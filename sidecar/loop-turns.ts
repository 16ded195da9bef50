// The event loop's turns shared between clients (issue 46). Node reads every request that has arrived in one turn of
// its loop and starts them all before it looks at the network again: sixty-four requests a client arriving together
// from five addresses (320 live pages, each read from the database in that turn) held the loop 50 to 110 ms at a
// time, and a reader on another address, asking one cached page, waited behind all of them (its p99 ten times its
// baseline). A client with more requests in progress than a browser opens connections to one host is started in
// turns instead: a few requests a turn, one client's after another's, the network looked at between turns. A person's
// browser, an agent, a crawler asking one page at a time are started at once, as before.
import { LIGHT_REQUESTS, type RequestsInProgress } from './clients.ts';

/** Requests of heavy clients started in one turn of the loop: a few milliseconds of work at most. */
const PER_TURN = 8;

export class LoopTurns {
  readonly #requests: Pick<RequestsInProgress, 'of'>;
  /** The requests waiting, by client; a Map keeps insertion order, and a client served goes to the end. */
  readonly #lines = new Map<string, (() => void)[]>();
  #scheduled = false;

  constructor(requests: Pick<RequestsInProgress, 'of'>) {
    this.#requests = requests;
  }

  /** Starts `start` now, or, for a client with many requests in progress, in its turn. */
  start(client: string, start: () => void): void {
    const line = this.#lines.get(client);
    // Behind its own requests still waiting, whatever it holds now: pipelined on one connection, a later request
    // started first answered first and waited behind the earlier one, holding what it held (/mcp's four slots, all
    // held so for a flood's ten-second send timeout while another reader's call waited 9.2 s).
    if (!line && this.#requests.of(client) <= LIGHT_REQUESTS) return start();
    if (line) line.push(start);
    else this.#lines.set(client, [start]);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#turn);
    }
  }

  readonly #turn = () => {
    for (let started = 0; started < PER_TURN && this.#lines.size > 0; started++) {
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
