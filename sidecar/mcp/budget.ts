// The bytes one POST /mcp may answer with (MCP_MAX_RESPONSE_BYTES), shared by the messages of a batch. The conductor
// opens it per request and takes each answer's serialised size from it; the tools look at what is left before they
// read a document, so a document too large is refused before it is read whole, and a batch of large answers is
// never built at all. Carried by async context: the SDK's servers stand between the conductor and the tools.
import { AsyncLocalStorage } from 'node:async_hooks';

export class AnswerBudget {
  readonly limit: number;
  private used = 0;

  constructor(limit: number) {
    this.limit = limit;
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

/** What a tool says of a document too large for what its answer may still hold. */
export function tooLarge(what: string, bytes: number): string {
  const left = bytesLeft();
  return `${what} is too large to return here: ${bytes.toLocaleString('en-US')} bytes, and this answer may hold ${Math.max(0, left).toLocaleString('en-US')} more (MCP_MAX_RESPONSE_BYTES, shared by the messages of a batch). Ask for less in one request, or fetch it over HTTP.`;
}
