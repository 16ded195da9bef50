// Who a request counts against, and what each client holds now. A client is the address a request came from (as the
// fronts TRUST_PROXY names report it in X-Forwarded-For), or for IPv6 its /64. Every shared resource is shared out per
// client: connections and requests in progress here, body bytes (request-body.ts), the render queue, the decompression
// and /mcp slots (fair-slots.ts), costly work under pressure (pressure.ts). The request being answered carries its
// client through every call it makes (AsyncLocalStorage), so that a service far below the route (the render pool)
// knows whose work it queues without each layer between passing it on.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';

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

/** The server's own work (warming up, a render asked for outside any request): one client of its own. */
const SERVER_CLIENT = 'server';

/** The request being answered: whose it is, and the answer whose close says the client left. */
interface Asking {
  client: string;
  answer: ServerResponse | undefined;
  /** Made on first use: most requests never wait for anything shared. */
  gone?: Promise<void>;
}

const current = new AsyncLocalStorage<Asking>();
const NEVER = new Promise<never>(() => undefined);

/**
 * Runs `fn` (and every call it makes, synchronous or not) as `client`'s work; `answer`, the response being made, says
 * when the client leaves before it is sent (clientGone).
 */
export function runAs<T>(client: string, fn: () => T, answer?: ServerResponse): T {
  return current.run({ client, answer }, fn);
}

/**
 * Runs `fn` as the server's own work, whichever request's call it is made in: what it queues (a page made again as
 * an edit is read) waits in the server's line, and no client's leaving gives it up.
 */
export function asServer<T>(fn: () => T): T {
  return current.exit(fn);
}

/** The client whose request is being answered here. */
export function currentClient(): string {
  return current.getStore()?.client ?? SERVER_CLIENT;
}

/**
 * Settles when the client whose request is being answered here has gone before its answer was sent (its connection
 * closed): what waits for a shared slot on its behalf gives its place up (fair-slots.ts `acquire`), so that work
 * nobody will read (a render queued behind a stranger's closed connections) is never done. Never settles for the
 * server's own work. An answer's close after it was sent settles it too, when nothing waits any more.
 */
export function clientGone(): Promise<void> {
  const asking = current.getStore();
  if (!asking?.answer) return NEVER;
  const { answer } = asking;
  asking.gone ??= answer.closed ? Promise.resolve() : new Promise<void>((left) => answer.once('close', () => left()));
  return asking.gone;
}

/**
 * Requests in progress per client, bounded: a client that pipelines on one connection, or reaches us through a front
 * whose connections it shares with everyone, holds no more than `perClient` requests at once.
 */
export class RequestsInProgress {
  readonly #perClient: number;
  readonly #counts = new Map<string, number>();

  constructor(perClient: number) {
    this.#perClient = perClient;
  }

  /** Counts a request of `client` in; false (and nothing counted) when it already has its share in progress. */
  enter(client: string): boolean {
    const count = this.#counts.get(client) ?? 0;
    if (count >= this.#perClient) return false;
    this.#counts.set(client, count + 1);
    return true;
  }

  leave(client: string): void {
    const left = (this.#counts.get(client) ?? 1) - 1;
    if (left > 0) this.#counts.set(client, left);
    else this.#counts.delete(client);
  }

  /** Requests `client` has in progress now. */
  of(client: string): number {
    return this.#counts.get(client) ?? 0;
  }

  /** Clients with a request in progress now. */
  get clients(): number {
    return this.#counts.size;
  }
}

/**
 * Requests a client may start, at `ratePerSecond` on average with a burst of `burst` (a token bucket a client):
 * requests in progress bound what a client holds at once, this what it makes the server do in a second, refusals
 * included (issue 60: sixteen connections pipelining a cached page and reading the answers had 241,354 requests refused
 * in 17 s, each a trip through the app, while another reader got 12 answers).
 */
/** Clients the request rate remembers before it sweeps those whose bucket is full again, and how often it may. */
const SWEEP_PAST = 10_000;
const SWEEP_EVERY_MS = 1000;

export class RequestRate {
  readonly #ratePerSecond: number;
  readonly #burst: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  /** When the map was last swept of clients whose bucket is full again. */
  #swept = -Infinity;

  constructor({ ratePerSecond, burst }: { ratePerSecond: number; burst: number }) {
    this.#ratePerSecond = ratePerSecond;
    // As nginx's `limit_req … burst=N nodelay`: the request its rate allows now, and `burst` more beyond it.
    this.#burst = burst + 1;
  }

  /** Counts a request of `client`; false when it is past its rate and burst (nothing is counted then). */
  take(client: string, now = performance.now()): boolean {
    const bucket = this.#buckets.get(client) ?? { tokens: this.#burst, at: now };
    bucket.tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#ratePerSecond);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.#buckets.set(client, bucket);
      return false;
    }
    bucket.tokens -= 1;
    // A client whose bucket is full again is forgotten: the map holds only clients seen in the last burst's time. Swept
    // once a second at most: swept at every request past 10,000 busy clients, each request cost a walk of them all
    // (about 100 us of the event loop).
    if (this.#buckets.size > SWEEP_PAST && now - this.#swept >= SWEEP_EVERY_MS) {
      this.#swept = now;
      this.#forgetFull(now);
    }
    this.#buckets.set(client, bucket);
    return true;
  }

  #forgetFull(now: number): void {
    for (const [client, bucket] of this.#buckets)
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.#ratePerSecond >= this.#burst) this.#buckets.delete(client);
  }
}
