// Readers under load, for the tests that do something to a running service (kill a sidecar, switch the build) and
// count what readers got meanwhile: `count` readers each ask `paths` in turn, one request at a time, until stopped;
// every answer that is not 200, and every request that failed, is a failure, named by its path. Waits are counted
// in answers, not timed, so that a machine half as fast passes the same test.
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Who answered and why, in one line: an HTML page's title (a proxy's error page), or the body's first words. */
const why = (body: string) =>
  (/<title>([^<]*)<\/title>/i.exec(body)?.[1] ?? body).replace(/\s+/g, ' ').trim().slice(0, 100);

export interface Readers {
  /** What went wrong: `path: status why` (see `why`), or `path: message (cause)`. */
  failures: string[];
  /** Answers received so far. */
  answered: () => number;
  /** Resolves once `n` answers more than `since` have come (at most twenty seconds). */
  until: (n: number, since?: number) => Promise<void>;
  /** Stops them and waits for their last requests. */
  stop: () => Promise<void>;
}

export function startReaders(options: {
  count: number;
  paths: string[];
  /** How a reader asks: fetch, or a client that retries what a browser would. */
  get: (path: string) => Promise<Response>;
  /** A pause between one reader's requests (a reader, not a flood), ms. */
  pauseMs?: number;
}): Readers {
  const failures: string[] = [];
  let answered = 0;
  let stopped = false;
  const reader = async (n: number) => {
    for (let i = n; !stopped; i++) {
      const path = options.paths[i % options.paths.length]!;
      try {
        const res = await options.get(path);
        const body = await res.text();
        answered++;
        // The status names the failure; the body's first words say who answered it and why (a proxy's error page or
        // the sidecar's reason), which is what a flaky failure needs to be diagnosed from one CI log.
        if (res.status !== 200) failures.push(`${path}: ${res.status} ${why(body)}`.trimEnd());
      } catch (err) {
        failures.push(`${path}: ${(err as Error).message} (${String((err as Error).cause)})`);
      }
      if (options.pauseMs) await pause(options.pauseMs);
    }
  };
  const running = Promise.all(Array.from({ length: options.count }, (_, n) => reader(n)));
  return {
    failures,
    answered: () => answered,
    until: async (n, since = 0) => {
      for (let i = 0; i < 400 && answered - since < n; i++) await pause(50);
    },
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}
