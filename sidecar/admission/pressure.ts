// Load shedding: when the event loop lags or the heap nears its limit, costly work (a render, a sitemap build, an
// /mcp request) is refused at once with 503 and Retry-After, while /health, static files and cached pages keep
// answering. The client that causes the load is refused first: while the loop lags, only clients with more requests in
// progress than a browser opens connections to one host (six) are refused costly work (a person's browser, an agent
// beside it, a crawler asking one page at a time go on); the whole process sheds, and /health says so, only when the
// loop lags four times the bound or the heap nears its cap.
// The measuring is @fastify/under-pressure's (the event loop's delay, the heap, on a timer); which request is costly
// is decided here and by the services, which ask `refusal()` before costly work.
import { getHeapStatistics } from 'node:v8';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentClient, type RequestsInProgress } from './clients.ts';
import { LIMITS } from './limits.ts';

export interface PressureLimits {
  /** The event loop's mean delay over a sample past which costly work is refused (ms). */
  maxEventLoopDelayMs: number;
  /** The heap used past which costly work is refused: four fifths of V8's limit unless given. */
  maxHeapUsedBytes?: number;
  /** Requests in progress by client: under a lag, who has more than one is refused first. */
  requests?: Pick<RequestsInProgress, 'of'>;
  /** Requests in progress a client may have and still count as light (LIGHT_REQUESTS). */
  lightRequests?: number;
}

/** How often the loop's delay and the heap are sampled. */
export const SAMPLE_MS = 250;
/** A lag this many times the bound sheds every client's costly work, not only the heaviest's. */
const SEVERE = 4;

/**
 * V8's heap limit includes the young generation (three semi-spaces: 24 of the 184 MB `npm run serve` gives), so the
 * old generation's own cap (160 MB) lies below nine tenths of it: a guard there never fired before the process died
 * of a full old generation (issue 46). Four fifths (147 MB as shipped) lies below it.
 */
const HEAP_SHARE = 0.8;

export class Pressure {
  readonly #limits: Required<Omit<PressureLimits, 'requests' | 'lightRequests'>>;
  readonly #lightRequests: number;
  readonly #requests: Pick<RequestsInProgress, 'of'> | undefined;
  #sample: () => { eventLoopDelay: number; heapUsed: number } = () => ({ eventLoopDelay: 0, heapUsed: 0 });

  constructor({ requests, lightRequests = LIMITS.lightRequests.default, ...limits }: PressureLimits) {
    this.#limits = { maxHeapUsedBytes: Math.floor(getHeapStatistics().heap_size_limit * HEAP_SHARE), ...limits };
    this.#requests = requests;
    this.#lightRequests = lightRequests;
  }

  /**
   * Why this process takes on no costly work from anyone now, in words for /health and a 503; undefined when it
   * serves at least the clients asking one thing at a time.
   */
  why(): string | undefined {
    return this.#judge(SEVERE);
  }

  /** Why the current request's client (clients.ts) is refused costly work now; undefined when it may have it. */
  refusal(): string | undefined {
    // At "one request", a reader whose live page waited for a render thread had its MCP call refused as a second.
    const light = (this.#requests?.of(currentClient()) ?? 0) <= this.#lightRequests;
    return this.#judge(light ? SEVERE : 1);
  }

  /** Why costly work is refused when the loop's delay is over `times` the bound (or the heap over its). */
  #judge(times: number): string | undefined {
    const { eventLoopDelay, heapUsed } = this.#sample();
    const { maxEventLoopDelayMs, maxHeapUsedBytes } = this.#limits;
    // A sample with no turn of the loop in it (the loop was held, or not scheduled, for the whole interval) is an
    // infinite delay to under-pressure; it is a delay of at least the interval, and judged as that.
    const [delay, atLeast] = Number.isFinite(eventLoopDelay) ? [eventLoopDelay, ''] : [SAMPLE_MS, 'at least '];
    if (delay > maxEventLoopDelayMs * times)
      return `the event loop lags ${atLeast}${Math.round(delay)} ms (over ${maxEventLoopDelayMs * times} ms)`;
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
      // Judged here, per client (refusal()); under-pressure's own bound would refuse every client alike.
      maxEventLoopDelay: this.#limits.maxEventLoopDelayMs,
      maxHeapUsedBytes: this.#limits.maxHeapUsedBytes,
      // What it returns is sent as the answer (nothing: the request goes on), though its types say it returns nothing.
      pressureHandler: ((request: FastifyRequest, reply: FastifyReply) => {
        if (!costly(request.method, request.url)) return undefined;
        const why = this.refusal();
        if (!why) return undefined;
        const refusal = refuse(why);
        reply.code(refusal.statusCode).headers(refusal.headers);
        return refusal.body;
      }) as unknown as () => void,
    });
    this.#sample = () => app.memoryUsage();
  }
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
