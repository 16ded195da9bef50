// Readers under load, for the tests that do something to a running service (kill a sidecar, switch the build) and
// count what readers got meanwhile: `count` readers each ask `paths` in turn, one request at a time, until stopped;
// every answer that is not 200, and every request that failed, is a failure, named by its path. Waits are counted
// in answers, not timed, so that a machine half as fast passes the same test.
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Readers {
  /** What went wrong: `path: status`, or `path: message (cause)`. */
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
        await res.arrayBuffer();
        answered++;
        if (res.status !== 200) failures.push(`${path}: ${res.status}`);
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
