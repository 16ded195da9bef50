// Load shedding: when the event loop lags or the heap nears its limit, costly work (a render, a sitemap build, an
// /mcp request) is refused at once with 503 and Retry-After, while /health, static files and cached pages keep
// answering, and /health says why. The measuring is @fastify/under-pressure's (the event loop's delay, the heap, on a
// timer); which request is costly is decided here and by the services, which ask `why()` before costly work.
import { getHeapStatistics } from 'node:v8';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface PressureLimits {
  /** The event loop's mean delay over a sample past which costly work is refused (ms). */
  maxEventLoopDelayMs: number;
  /** The heap used past which costly work is refused: nine tenths of V8's limit unless given. */
  maxHeapUsedBytes?: number;
}

/** How often the loop's delay and the heap are sampled. */
export const SAMPLE_MS = 250;

export class Pressure {
  readonly #limits: Required<PressureLimits>;
  #sample: () => { eventLoopDelay: number; heapUsed: number } = () => ({ eventLoopDelay: 0, heapUsed: 0 });

  constructor(limits: PressureLimits) {
    this.#limits = { maxHeapUsedBytes: Math.floor(getHeapStatistics().heap_size_limit * 0.9), ...limits };
  }

  /** Why this process should take on no costly work now, in words for /health and a 503; undefined when it may. */
  why(): string | undefined {
    const { eventLoopDelay, heapUsed } = this.#sample();
    const { maxEventLoopDelayMs, maxHeapUsedBytes } = this.#limits;
    // A sample with no turn of the loop in it (the loop was held, or not scheduled, for the whole interval) is an
    // infinite delay to under-pressure; it is a delay of at least the interval, and judged as that.
    const [delay, atLeast] = Number.isFinite(eventLoopDelay) ? [eventLoopDelay, ''] : [SAMPLE_MS, 'at least '];
    if (delay > maxEventLoopDelayMs)
      return `the event loop lags ${atLeast}${Math.round(delay)} ms (over ${maxEventLoopDelayMs} ms)`;
    if (heapUsed > maxHeapUsedBytes) return `the heap holds ${mb(heapUsed)} MB (over ${mb(maxHeapUsedBytes)} MB)`;
    return undefined;
  }

  /**
   * Samples `app` with under-pressure, and refuses an /mcp request under pressure before its body is read (`costly`
   * names such requests); every other request goes on, and the services refuse what would cost.
   */
  async measure(
    app: FastifyInstance,
    costly: (method: string, url: string) => boolean,
    refuse: (why: string) => { statusCode: number; body: string; headers: Record<string, string> },
  ): Promise<void> {
    await app.register(underPressure, {
      sampleInterval: SAMPLE_MS,
      maxEventLoopDelay: this.#limits.maxEventLoopDelayMs,
      maxHeapUsedBytes: this.#limits.maxHeapUsedBytes,
      // What it returns is sent as the answer (nothing: the request goes on), though its types say it returns nothing.
      pressureHandler: ((request: FastifyRequest, reply: FastifyReply) => {
        const why = this.why();
        if (!why || !costly(request.method, request.url)) return undefined;
        const refusal = refuse(why);
        reply.code(refusal.statusCode).headers(refusal.headers);
        return refusal.body;
      }) as unknown as () => void,
    });
    this.#sample = () => app.memoryUsage();
  }
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
