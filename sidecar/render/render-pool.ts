// The render pool: worker threads (piscina) that do the CPU work of live answers (an Astro render, its Markdown twin,
// a QR code, and each one's compressed forms), so that the event loop, which answers /health and every cached page,
// is never held by it. Piscina rather than Node's Worker by hand: it queues tasks with a bound, moves results without
// copying, replaces a thread that dies, and lowers the threads' priority so that the event loop's thread is scheduled
// first when the cores are busy. The queue in front of the threads is fair between clients (fair-slots.ts, issue 46):
// a task waits in its client's line (clients.ts' currentClient, the request it serves), the threads take the lines in
// turn, so one client pipelining hundreds of renders delays another's one by a task a client at most; when the lines
// are full, the longest gives up its last, and a task that waited RENDER_WAIT_MS is refused (Overloaded: a 503 that
// says when to retry) instead of waiting behind work that would take longer than a client waits.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import Piscina from 'piscina';
import type { Encoding } from '../../src/lib/compression.ts';
import type { LiveLocals } from '../../src/lib/live-content.ts';
import type { OgCard } from '../../src/lib/og.ts';
import { clientGone, currentClient } from '../admission/clients.ts';
import { FairSlots, Overloaded } from '../admission/fair-slots.ts';
import { LIMITS } from '../admission/limits.ts';
import type { RenderedBytes, RenderTask } from './render-worker.ts';

/** What a task made: the body and its compressed forms (none when not worth compressing). */
export interface Rendered {
  body: Buffer;
  forms: Partial<Record<Encoding, Buffer>>;
  /** A page's: when what it shows next changes by itself, ms (render-worker.ts). */
  freshUntil?: number | undefined;
  /** A themed page's: the CSP sources of the owner's stylesheet in it (render-worker.ts). */
  styleHashes?: string[] | undefined;
}

export interface RenderPoolOptions {
  /** dist/server/entry.mjs: Astro's renderer of the live pages. */
  serverEntry: string;
  /** Worker threads at most (RENDER_THREADS). */
  threads: number;
  /** Tasks waiting at most per thread before new ones are refused (RENDER_WAITING_PER_THREAD: a second or two). */
  queuePerThread?: number;
  /** The longest a task waits for a thread before it is refused: a 503 says to retry rather than keep a visitor waiting. */
  maxWaitMs?: number;
  /** The threads' work in turn between clients, as the app's admission made it (made of the two above unless given). */
  slots?: FairSlots;
}

/** How far below the event loop's thread the render threads run (nice), and V8's own (background-threads.ts). */
export const RENDER_NICE_INCREMENT = 5;

/** The default number of threads: every core but the one the event loop runs on, and at least one. */
export const defaultRenderThreads = () => Math.max(1, availableParallelism() - 1);

export class RenderPool {
  readonly #pool: Piscina<RenderTask, RenderedBytes>;
  /** The threads' work, taken in turn between clients: two tasks a thread (one running, the next ready). */
  readonly #slots: FairSlots;

  constructor(options: RenderPoolOptions) {
    this.#slots =
      options.slots ??
      new FairSlots({
        capacity: options.threads * 2,
        maxWaiting: options.threads * (options.queuePerThread ?? LIMITS.renderWaitingPerThread.default),
        maxWaitMs: options.maxWaitMs ?? LIMITS.renderWaitMs.default,
      });
    this.#pool = new Piscina({
      filename: fileURLToPath(new URL('./render-worker.ts', import.meta.url)),
      workerData: { serverEntry: options.serverEntry },
      // Started on first use (or by warm()) and kept: a thread that left when idle would load Astro again, a second of
      // CPU, for the next visitor.
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: 24 * 60 * 60 * 1000,
      // Below the event loop's thread in the scheduler's eyes: /health first when every core is busy.
      niceIncrement: RENDER_NICE_INCREMENT,
      // Tasks by message, not by Atomics.wait: a thread blocked in Atomics.wait between tasks never returns to its
      // event loop, so what a render leaves on its nextTick queue (the request stream's end) piled up: 86 KB a render,
      // 1.2 GB after 12,000 renders. By message the thread stays flat (228 MB after 4,000) and renders faster.
      atomics: 'disabled',
      // A task's whole heap (an Astro render of the largest page holds a few MB) well within these.
      resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16 },
    });
  }

  /**
   * Starts every thread and has it load Astro's renderer (a second of CPU), so that the first visitor of a live page
   * does not wait for it. The sidecar process does this before it listens; apps in tests start threads on first use.
   */
  async warm(threads: number): Promise<void> {
    await Promise.all(Array.from({ length: threads }, () => this.#run({ kind: 'warm', type: '' })));
  }

  /** A live page's HTML. */
  page(path: string, locals: LiveLocals, type: string): Promise<Rendered> {
    return this.#run({ kind: 'page', path, locals, type });
  }

  /** The Markdown twin of a page's HTML. */
  markdown(html: Buffer, type: string): Promise<Rendered> {
    return this.#run({ kind: 'markdown', html, type });
  }

  /** A link preview's picture (og.ts), as a 1200×630 PNG. */
  og(card: OgCard, type: string, picture?: Uint8Array): Promise<Rendered> {
    return this.#run({ kind: 'og', card, picture, type });
  }

  /** A QR code of `text`, as SVG; its modules `dark` (`#rrggbb`, dark enough to scan on white) or black. */
  qr(text: string, type: string, dark?: string): Promise<Rendered> {
    return this.#run({ kind: 'qr', text, dark, type });
  }

  /** A document's text (its UTF-8 bytes, or those gzipped) as a JSON string literal in UTF-8: an MCP answer's large text. */
  async jsonString({ bytes, gzipped }: { bytes: Buffer; gzipped: boolean }): Promise<Buffer> {
    return (await this.#run({ kind: 'json-string', text: bytes, gzipped, type: 'application/octet-stream' })).body;
  }

  /**
   * Why a task of the client being answered would be refused now (every place in the lines taken, its own line the
   * longest), or undefined: asked before the reads a render needs, so that a client past its share of the threads is
   * refused before it costs a database read (issue 60).
   */
  refusal(): string | undefined {
    return this.#slots.wouldRefuse(currentClient()) ? `${this.#slots.waiting} renders are waiting` : undefined;
  }

  /** Tasks waiting for a thread now. */
  get queued(): number {
    return this.#slots.waiting + this.#pool.queueSize;
  }

  /** Threads' busy share since start (0–1). */
  get utilization(): number {
    return this.#pool.utilization;
  }

  close(): Promise<void> {
    return this.#pool.destroy();
  }

  /** Tasks the threads have done since start, by kind (`bio_render_tasks_total`). */
  readonly done: Partial<Record<RenderTask['kind'], number>> = {};

  async #run(task: RenderTask): Promise<Rendered> {
    // A task whose client has gone while it waited is never done: nobody would read it (issue 60).
    const release = await this.#slots.acquire(currentClient(), clientGone());
    if (!release) throw new Overloaded(`${this.#slots.waiting} renders are waiting`);
    let done: RenderedBytes;
    try {
      done = await this.#pool.run(task);
    } finally {
      release();
      this.done[task.kind] = (this.done[task.kind] ?? 0) + 1;
    }
    const forms: Rendered['forms'] = {};
    for (const [encoding, bytes] of Object.entries(done.forms) as [Encoding, Uint8Array][])
      forms[encoding] = bufferOf(bytes);
    return { body: bufferOf(done.body), forms, freshUntil: done.freshUntil, styleHashes: done.styleHashes };
  }
}

const bufferOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
