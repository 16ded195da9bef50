// JSON-RPC 2.0 for POST /mcp, apart from HTTP and from the order of things (conductor.ts): a body read as one
// message or a batch, what a message is, params checked against their method, the error envelope, and the one mapping
// of our errors to MCP answers.
import { ClientRequestSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { MCP_TOOLS } from '../../src/lib/mcp-tools.ts';
import type { Result } from '../../src/lib/result.ts';
import { nestsDeeperThan } from '../json-nesting.ts';
import { Overloaded } from '../admission/fair-slots.ts';
import { StoreUnavailableError } from '../store/store.ts';

/**
 * The JSON-RPC error codes this endpoint answers with, the only place they are written: JSON-RPC 2.0's, -32000
 * ("server error") for what the transport refuses, and MCP's unknown resource of the 2025 revisions (2026-07-28 says
 * invalidParams, with the URI in `data`).
 */
export const CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  serverError: -32000,
  legacyResourceNotFound: -32002,
} as const;

export type Id = string | number | null;

export interface ErrorResponse {
  jsonrpc: '2.0';
  id: Id;
  error: { code: number; message: string };
}

/** The error envelope, written once. */
export function errorResponse(id: Id, code: number, message: string): ErrorResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** The answer to a request body over `limit` bytes (the route's, and the edge's before it forwards anything). */
export function bodyTooLarge(limit: number): ErrorResponse {
  return errorResponse(null, CODES.invalidRequest, `Request body is larger than ${limit} bytes`);
}

/** The answer to a request whose answer would not fit in what the response may hold. */
export function answerTooLarge(id: Id, maxBytes: number): ErrorResponse {
  return errorResponse(
    id,
    CODES.serverError,
    `Response too large: over ${maxBytes} bytes for this response; ask for less in one request`,
  );
}

/** What a tool or resource says when the database cannot be read now: it may retry. */
export const STORE_UNAVAILABLE = 'The database is temporarily unavailable; try again in a minute.';

/** The one mapping of our errors: a message a client can act on, or undefined for a defect (the SDK reports it). */
export function clientMessageOf(err: unknown): string | undefined {
  if (err instanceof StoreUnavailableError) return STORE_UNAVAILABLE;
  if (err instanceof Overloaded) return err.message;
  return undefined;
}

/**
 * A body as JSON-RPC: one value, or a batch (an array, JSON-RPC 2.0 section 6, whose elements are judged one by one),
 * or the error that answers the whole body: -32700 when it is not JSON, -32600 for an empty batch or one over the
 * limit.
 */
export type Body = Result<
  { batch: false; value: unknown } | { batch: true; elements: unknown[] },
  { error: ErrorResponse }
>;

/** How deep a body may nest: far beyond any request's params, far within what validating it needs of the stack. */
const MAX_BODY_NESTING = 64;

export function parseBody(body: string, maxBatch: number): Body {
  if (nestsDeeperThan(body, MAX_BODY_NESTING)) {
    return {
      ok: false,
      error: errorResponse(
        null,
        CODES.invalidRequest,
        `Invalid Request: the body is nested deeper than ${MAX_BODY_NESTING} levels`,
      ),
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, error: errorResponse(null, CODES.parseError, 'Parse error: the body is not valid JSON') };
  }
  if (!Array.isArray(parsed)) return { ok: true, batch: false, value: parsed };
  if (parsed.length === 0)
    return { ok: false, error: errorResponse(null, CODES.invalidRequest, 'Invalid Request: an empty batch') };
  if (parsed.length > maxBatch) {
    return {
      ok: false,
      error: errorResponse(
        null,
        CODES.invalidRequest,
        `Invalid Request: a batch may hold at most ${maxBatch} messages (this one holds ${parsed.length}); send the rest in further requests`,
      ),
    };
  }
  return { ok: true, batch: true, elements: parsed };
}

/** Whether `value` is a JSON-RPC 2.0 message (request, notification or response); else it is answered -32600. */
export function isMessage(value: unknown): boolean {
  return JSONRPCMessageSchema.safeParse(value).success;
}

export const NOT_A_MESSAGE = 'Invalid Request: not a JSON-RPC 2.0 message';

/** Whether a message is a request (it has an id and a method: it gets an answer). */
export function isRequest(message: unknown): message is { id: string | number; method: string } {
  const m = message as { id?: unknown; method?: unknown };
  return m.id !== undefined && typeof m.method === 'string';
}

/** Whether a message is a notification (a method without an id: nothing answers it). */
export function isNotification(message: unknown): boolean {
  const m = message as { id?: unknown; method?: unknown };
  return m.id === undefined && typeof m.method === 'string';
}

/** Each client request method with the schema of its params, from the SDK's own definitions. */
const REQUEST_SCHEMAS = new Map<
  string,
  {
    safeParse: (value: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
  }
>(
  (
    ClientRequestSchema.options as unknown as {
      shape: { method: { value: string } };
      safeParse: (value: unknown) => never;
    }[]
  ).map((schema) => [schema.shape.method.value, schema]),
);

/**
 * A -32602 answer for a request whose params do not fit its method, in one line naming the field (the SDK would say
 * -32603 Internal error, or -32602 with its validator's dump), else undefined: notifications, unknown methods (the
 * SDK's -32601) and fitting requests.
 */
export function invalidParams(message: unknown): ErrorResponse | undefined {
  if (!isRequest(message)) return undefined;
  const result = REQUEST_SCHEMAS.get(message.method)?.safeParse(message);
  if (result?.success && message.method === 'tools/call') {
    // The SDK looks a tool up in a plain object: `constructor` or `toString` found a function there ("Tool toString
    // disabled"). A name the registry does not own is unknown, in the SDK's own words.
    const name = (message as unknown as { params: { name: string } }).params.name;
    if (!Object.hasOwn(MCP_TOOLS, name))
      return errorResponse(message.id, CODES.invalidParams, `Tool ${name} not found`);
  }
  if (!result || result.success) return undefined;
  const issue = result.error?.issues[0];
  const where = issue ? issue.path.map(String).join('.') : 'params';
  const why = (issue?.message ?? 'does not fit the method').split('\n')[0];
  return errorResponse(message.id, CODES.invalidParams, `Invalid params: ${where}: ${why}`);
}
