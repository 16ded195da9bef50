// The bytes one POST /mcp may answer with (MCP_MAX_RESPONSE_BYTES), shared by the messages of a batch. The conductor
// opens it per request and takes each answer's serialised size from it; the tools look at what is left before they
// read a document, so a document too large is refused before it is read whole, and a batch of large answers is
// never built at all. Carried by async context: the SDK's servers stand between the conductor and the tools.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import type { Asset } from '../asset.ts';

/** A document's text to be written into an answer: its UTF-8 bytes, or those gzipped (a document kept compressed). */
export interface DeferredText {
  bytes: Buffer;
  gzipped: boolean;
}

/**
 * Documents past this size are not read into the answer on the event loop: the answer holds a token for each, and
 * the conductor writes the document there as JSON, escaped by the render pool (a 4 MB text took 25 ms to decode, 30 to
 * escape and 40 to encode again, all on the loop that answers /health).
 */
const DEFER_BYTES = 64 * 1024;

export class AnswerBudget {
  readonly limit: number;
  private used = 0;
  /** Documents whose text stands in the answer as a token, by token: written in when the answer is serialised. */
  readonly deferred = new Map<string, DeferredText>();
  /** Tokens of this request's answers: random, so that no document's own text can pass for one. */
  private readonly tokenPrefix = `@@bio-deferred-${randomBytes(12).toString('hex')}-`;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** A token that stands for a document's text in the answer, until the conductor writes the text there. */
  defer(text: DeferredText): string {
    const token = `${this.tokenPrefix}${this.deferred.size}@@`;
    this.deferred.set(token, text);
    return token;
  }

  get remaining(): number {
    return this.limit - this.used;
  }

  /** Takes `bytes` when they fit in what is left, and says whether they did. */
  take(bytes: number): boolean {
    if (bytes > this.remaining) return false;
    this.used += bytes;
    return true;
  }
}

const current = new AsyncLocalStorage<AnswerBudget>();

/** Runs `answer` with `budget` as the budget of everything it calls. */
export function withBudget<T>(budget: AnswerBudget, answer: () => Promise<T>): Promise<T> {
  return current.run(budget, answer);
}

/** The bytes the answer being made may still hold (unbounded outside a request: the in-process bench). */
export function bytesLeft(): number {
  return current.getStore()?.remaining ?? Infinity;
}

/**
 * The text of a document for an answer: itself when small, else a token the conductor replaces with the document,
 * decompressed and escaped off the event loop (outside a request, the text itself). A document kept only compressed
 * (a sitemap part of 5 MB) is handed over compressed: gunzipping it here held the loop 30 ms.
 */
export function textForAnswer(asset: Asset): string {
  const budget = current.getStore();
  if (!budget || asset.size <= DEFER_BYTES) return asset.body.toString('utf8');
  const gzip = asset.stream ? asset.encoded('gzip') : undefined;
  return budget.defer(gzip ? { bytes: gzip.body, gzipped: true } : { bytes: asset.body, gzipped: false });
}

/** What a tool says of a document too large for what its answer may still hold. */
export function tooLarge(what: string, bytes: number): string {
  const left = bytesLeft();
  return `${what} is too large to return here: ${bytes.toLocaleString('en-US')} bytes, and this answer may hold ${Math.max(0, left).toLocaleString('en-US')} more (MCP_MAX_RESPONSE_BYTES, shared by the messages of a batch). Ask for less in one request, or fetch it over HTTP.`;
}
