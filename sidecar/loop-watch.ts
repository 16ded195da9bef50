// How long the event loop is held: the main thread's CPU time between two turns of a timer. Whatever ran in between
// (a request's synchronous work, a garbage collection on this thread) held the loop for that long, and /health and
// every other request waited. CPU time, not wall time: a process the machine does not schedule for a while (a busy
// host, a test beside it) holds nothing, and its wall-clock lag says nothing about its own code. Read by the metrics
// (the longest hold since the last scrape), so the fuzzer and the benchmarks can hold each request to a bound.
import { threadCpuUsage } from 'node:process';

/** How often the watch looks: a hold is known to within this. */
const TICK_MS = 2;

export class LoopWatch {
  #longestUs = 0;
  #last = cpuUs();
  readonly #timer: NodeJS.Timeout;

  constructor() {
    this.#timer = setInterval(() => {
      const now = cpuUs();
      const held = now - this.#last;
      this.#last = now;
      if (held > this.#longestUs) this.#longestUs = held;
    }, TICK_MS).unref();
  }

  /** The longest the loop was held since the last call, in milliseconds (and starts counting anew). */
  takeLongestHoldMs(): number {
    // What has run since the last turn counts too (the scrape itself is a turn of its own).
    const sinceTurn = cpuUs() - this.#last;
    const longest = Math.max(this.#longestUs, sinceTurn);
    this.#longestUs = 0;
    this.#last = cpuUs();
    return longest / 1000;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

function cpuUs(): number {
  const { user, system } = threadCpuUsage();
  return user + system;
}
