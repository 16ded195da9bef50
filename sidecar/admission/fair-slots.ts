// A few slots shared by every client, taken in turn between clients: each client waits in a line of its own, and a
// freed slot goes to the next client in rotation, not to whoever queued most. A client whose line was empty when it
// asked goes first, once (FQ-CoDel's new flows, RFC 8290): a reader asking one thing waits for one slot to free, not
// for a turn of every client with a line (a live page behind five crawlers' lines waited 167 ms). A client that keeps a
// line waiting gains nothing by it. A client with a hundred requests waiting delays another's one request by at most
// one turn. The lines together are bounded, so that waiting costs nothing unbounded either; when they are full, a
// newcomer whose line is shorter than the longest takes the place of that line's last request (which is refused), and
// any other newcomer is refused at once: one client may use every place while it is alone, and never keeps another out.
// A wait is bounded in time too (a request still waiting then is refused), and a client may hold at most its share of
// the slots at once. A refused request is answered 503 with Retry-After by the caller (Overloaded, below). Used for
// /mcp's slots, the render queue, the decompression of large documents and the PostgreSQL pool's connections.

import { RETRY_AFTER } from '../../src/lib/surface.ts';

/**
 * Work refused because the server is too busy now: answered 503 with Retry-After, never queued. A refusal, not a fault:
 * made without a stack trace, which nothing reads (the app and the MCP server answer it by its message) and whose
 * capture a stranger's flood paid for each time, thousands a second.
 */
export class Overloaded extends Error {
  override name = 'Overloaded';
  readonly retryAfterSeconds: number;
  constructor(why: string, retryAfterSeconds: number = RETRY_AFTER.busy) {
    const frames = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`Service busy: ${why}; retry in ${retryAfterSeconds} s`);
    Error.stackTraceLimit = frames;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Gives the slot back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  /** Its slot, or undefined when it is refused (its place given to another client, or its wait too long). */
  admit: (release: Release | undefined) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export interface FairSlotsOptions {
  /** Slots in use at once. */
  capacity: number;
  /** Requests waiting at once, every client's together. */
  maxWaiting: number;
  /** The longest a request waits for a slot before it is refused (default: no bound). */
  maxWaitMs?: number;
  /** Slots one client may hold at once (default: all of them). */
  perClient?: number;
}

const NEVER = new Promise<never>(() => undefined);

export class FairSlots {
  readonly #capacity: number;
  readonly #maxWaiting: number;
  readonly #maxWaitMs: number;
  readonly #perClient: number;
  #busy = 0;
  #waiting = 0;
  /** Lines that were empty when their client asked, served before the others, once, in the order they came. */
  readonly #fresh = new Map<string, Waiter[]>();
  /** Each other client's line, in rotation order (a Map keeps insertion order: a served client goes to the back). */
  readonly #lines = new Map<string, Waiter[]>();
  /** Slots each client holds now. */
  readonly #held = new Map<string, number>();

  constructor({ capacity, maxWaiting, maxWaitMs = Infinity, perClient = capacity }: FairSlotsOptions) {
    this.#capacity = capacity;
    this.#maxWaiting = maxWaiting;
    this.#maxWaitMs = maxWaitMs;
    this.#perClient = perClient;
  }

  /** Slots in use and requests waiting now. */
  get busy(): number {
    return this.#busy;
  }
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * A slot for `client`: at once when one is free, else after its turn; undefined when it is refused (the lines are
   * full and its own is the longest, its place was given to another client, or it waited its longest). `gone` settles
   * when the client leaves while it waits (its place is given up).
   */
  acquire(client: string, gone: Promise<unknown> = NEVER): Promise<Release | undefined> {
    if (this.#waiting === 0 && this.#mayTake(client)) return Promise.resolve(this.#take(client));
    const line = this.#fresh.get(client) ?? this.#lines.get(client);
    if (this.#waiting >= this.#maxWaiting && !this.#pushOut(line?.length ?? 0)) return Promise.resolve(undefined);
    return new Promise<Release | undefined>((resolve) => {
      const waiter: Waiter = { admit: resolve, timer: undefined };
      if (Number.isFinite(this.#maxWaitMs)) {
        waiter.timer = setTimeout(() => {
          if (this.#leave(client, waiter)) resolve(undefined);
        }, this.#maxWaitMs);
        waiter.timer.unref();
      }
      if (line) line.push(waiter);
      else this.#fresh.set(client, [waiter]);
      this.#waiting++;
      if (gone !== NEVER) void gone.then(() => this.#leave(client, waiter) && resolve(undefined));
    });
  }

  /**
   * Whether `client` asking now would be refused at once (every place taken, and no line longer than its own by two):
   * work it would do before it asks (a record read from the database for a render) is spared (issue 60).
   */
  wouldRefuse(client: string): boolean {
    if (this.#waiting < this.#maxWaiting) return false;
    const mine = (this.#fresh.get(client) ?? this.#lines.get(client))?.length ?? 0;
    for (const lines of [this.#fresh, this.#lines])
      for (const [, line] of lines) if (line.length > mine + 1) return false;
    return true;
  }

  #mayTake(client: string): boolean {
    return this.#busy < this.#capacity && (this.#held.get(client) ?? 0) < this.#perClient;
  }

  /** Refuses the last request of the longest line, when it is longer than `than`; whether a place was freed. */
  #pushOut(than: number): boolean {
    let longest: [string, Waiter[]] | undefined;
    for (const lines of [this.#fresh, this.#lines])
      for (const entry of lines) if (!longest || entry[1].length > longest[1].length) longest = entry;
    if (!longest || longest[1].length <= than + 1) return false;
    const [client, line] = longest;
    const waiter = line.pop()!;
    clearTimeout(waiter.timer);
    waiter.admit(undefined);
    if (line.length === 0) this.#linesOf(client).delete(client);
    this.#waiting--;
    return true;
  }

  #take(client: string): Release {
    this.#busy++;
    this.#held.set(client, (this.#held.get(client) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#busy--;
      const held = (this.#held.get(client) ?? 1) - 1;
      if (held > 0) this.#held.set(client, held);
      else this.#held.delete(client);
      this.#next();
    };
  }

  /** The map that holds `client`'s line (the fresh one when it has none). */
  #linesOf(client: string): Map<string, Waiter[]> {
    return this.#fresh.has(client) ? this.#fresh : this.#lines;
  }

  /** The first fresh line, then the next client in rotation, that may hold another slot gets the free one. */
  #next(): void {
    while (this.#busy < this.#capacity && this.#waiting > 0) {
      let chosen: [string, Waiter[]] | undefined;
      for (const lines of [this.#fresh, this.#lines]) {
        for (const entry of lines) {
          if (this.#mayTake(entry[0])) {
            chosen = entry;
            break;
          }
        }
        if (chosen) break;
      }
      if (!chosen) return;
      const [client, line] = chosen;
      const waiter = line.shift()!;
      clearTimeout(waiter.timer);
      // Served: what it still has waiting takes its turns in the rotation, at the back.
      this.#linesOf(client).delete(client);
      if (line.length > 0) this.#lines.set(client, line);
      this.#waiting--;
      waiter.admit(this.#take(client));
    }
  }

  /** Takes `waiter` out of its line; whether it was still waiting. */
  #leave(client: string, waiter: Waiter): boolean {
    const lines = this.#linesOf(client);
    const line = lines.get(client);
    const at = line?.indexOf(waiter) ?? -1;
    if (at === -1) return false;
    clearTimeout(waiter.timer);
    line!.splice(at, 1);
    if (line!.length === 0) lines.delete(client);
    this.#waiting--;
    return true;
  }
}
