// A few slots shared by every client, taken in turn between clients: each client waits in a line of its own, and a
// freed slot goes to the next client in rotation, not to whoever queued most. A client with a hundred requests waiting
// delays another's one request by at most one turn. The lines together are bounded, so that waiting costs nothing
// unbounded either; when they are full, a newcomer whose line is shorter than the longest takes the place of that
// line's last request (which is refused), and any other newcomer is refused at once: one client may use every place
// while it is alone, and never keeps another out. A refused request is answered 503 with Retry-After by the caller.

/** Gives the slot back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  /** Its slot, or undefined when its place was given to another client's request. */
  admit: (release: Release | undefined) => void;
}

export class FairSlots {
  readonly #capacity: number;
  readonly #maxWaiting: number;
  #busy = 0;
  #waiting = 0;
  /** Each client's line, in rotation order (a Map keeps insertion order: a served client goes to the back). */
  readonly #lines = new Map<string, Waiter[]>();

  constructor({ capacity, maxWaiting }: { capacity: number; maxWaiting: number }) {
    this.#capacity = capacity;
    this.#maxWaiting = maxWaiting;
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
   * full and its own is the longest, or its place was given to another client while it waited). `gone` settles when
   * the client leaves while it waits (its place is given up).
   */
  acquire(client: string, gone: Promise<unknown>): Promise<Release | undefined> {
    if (this.#busy < this.#capacity && this.#waiting === 0) return Promise.resolve(this.#take());
    const line = this.#lines.get(client);
    if (this.#waiting >= this.#maxWaiting && !this.#pushOut(line?.length ?? 0)) return Promise.resolve(undefined);
    return new Promise<Release | undefined>((resolve) => {
      const waiter: Waiter = { admit: resolve };
      if (line) line.push(waiter);
      else this.#lines.set(client, [waiter]);
      this.#waiting++;
      void gone.then(() => this.#leave(client, waiter));
    });
  }

  /** Refuses the last request of the longest line, when it is longer than `than`; whether a place was freed. */
  #pushOut(than: number): boolean {
    let longest: [string, Waiter[]] | undefined;
    for (const entry of this.#lines) if (!longest || entry[1].length > longest[1].length) longest = entry;
    if (!longest || longest[1].length <= than + 1) return false;
    const [client, line] = longest;
    line.pop()!.admit(undefined);
    if (line.length === 0) this.#lines.delete(client);
    this.#waiting--;
    return true;
  }

  #take(): Release {
    this.#busy++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#busy--;
      this.#next();
    };
  }

  /** The next client in rotation gets the free slot. */
  #next(): void {
    while (this.#busy < this.#capacity && this.#waiting > 0) {
      const [client, line] = this.#lines.entries().next().value as [string, Waiter[]];
      const waiter = line.shift()!;
      this.#lines.delete(client);
      if (line.length > 0) this.#lines.set(client, line);
      this.#waiting--;
      waiter.admit(this.#take());
    }
  }

  #leave(client: string, waiter: Waiter): void {
    const line = this.#lines.get(client);
    const at = line?.indexOf(waiter) ?? -1;
    if (at === -1) return;
    line!.splice(at, 1);
    if (line!.length === 0) this.#lines.delete(client);
    this.#waiting--;
  }
}

/**
 * The client a request counts against: its address, or for IPv6 its /64 network (one host is usually given a whole
 * /64, so its addresses are one client's).
 */
export function clientOf(address: string): string {
  if (!address.includes(':') || address.startsWith('::ffff:')) return address.replace(/^::ffff:/, '');
  const [head = '', tail] = address.split('::');
  const groups = head === '' ? [] : head.split(':');
  if (tail !== undefined) {
    const rest = tail === '' ? [] : tail.split(':');
    groups.push(...Array.from({ length: Math.max(0, 8 - groups.length - rest.length) }, () => '0'), ...rest);
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
}
