// The JSON-RPC layer of POST /mcp, apart from HTTP: parsing a body into messages (single or batch), the error
// envelope, params checked against their method, answers merged and bounded in size, and the one mapping of our
// errors to MCP answers. The route (routes/mcp.ts) does HTTP around it; the SDK's servers (server.ts) do the rest.
import { ClientRequestSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { StoreUnavailableError } from '../store/store.ts';

/** JSON-RPC 2.0 error codes used here (and -32000, "server error", for what the transport refuses). */
export const CODES = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603, serverError: -32000 } as const;

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

/** What a tool or resource says when the database cannot be read now: it may retry. */
export const STORE_UNAVAILABLE = 'The database is temporarily unavailable; try again in a minute.';

/** The one mapping of our errors: a message a client can act on, or undefined for a defect (the SDK reports it). */
export function clientMessageOf(err: unknown): string | undefined {
  return err instanceof StoreUnavailableError ? STORE_UNAVAILABLE : undefined;
}

export type Parsed = { ok: true; isBatch: boolean; messages: unknown[] } | { ok: false; error: ErrorResponse };

/** A request body as JSON-RPC messages: -32700 when it is not JSON, -32600 when not JSON-RPC or a batch too large. */
export function parseMessages(body: string, maxBatch: number): Parsed {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, error: errorResponse(null, CODES.parseError, 'Parse error: the body is not valid JSON') };
  }
  const isBatch = Array.isArray(parsed);
  const messages: unknown[] = isBatch ? (parsed as unknown[]) : [parsed];
  if (messages.length === 0 || !messages.every((m) => JSONRPCMessageSchema.safeParse(m).success)) {
    return { ok: false, error: errorResponse(null, CODES.invalidRequest, 'Invalid Request: the body is not a JSON-RPC 2.0 message') };
  }
  if (messages.length > maxBatch) {
    return { ok: false, error: errorResponse(null, CODES.invalidRequest, `Invalid Request: a batch may hold at most ${maxBatch} messages (this one holds ${messages.length}); send the rest in further requests`) };
  }
  return { ok: true, isBatch, messages };
}

/** Each client request method with the schema of its params, from the SDK's own definitions. */
const REQUEST_SCHEMAS = new Map<string, { safeParse: (value: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }>(
  (ClientRequestSchema.options as unknown as { shape: { method: { value: string } }; safeParse: (value: unknown) => never }[]).map((schema) => [schema.shape.method.value, schema]),
);

/**
 * A -32602 answer for a request whose params do not fit its method (the SDK would say -32603 Internal error with a
 * validation dump), else undefined: notifications, unknown methods (the SDK's -32601) and fitting requests.
 */
export function invalidParams(message: unknown): ErrorResponse | undefined {
  const m = message as { id?: string | number; method?: string };
  if (m.id === undefined || typeof m.method !== 'string') return undefined;
  const result = REQUEST_SCHEMAS.get(m.method)?.safeParse(message);
  if (!result || result.success) return undefined;
  const issue = result.error?.issues[0];
  const where = issue ? issue.path.map(String).join('.') : 'params';
  return errorResponse(m.id, CODES.invalidParams, `Invalid params: ${where}: ${issue?.message ?? 'does not fit the method'}`);
}

/** The messages that go on to a server, and the answers to those refused for their params. */
export function splitInvalidParams(messages: unknown[]): { valid: unknown[]; refused: ErrorResponse[] } {
  const refused: ErrorResponse[] = [];
  const valid = messages.filter((message) => {
    const error = invalidParams(message);
    if (error) refused.push(error);
    return !error;
  });
  return { valid, refused };
}

/** A server's answer (one message, a batch's list, or nothing for notifications) with the refused ones added. */
export function mergeAnswers(answer: unknown, refused: ErrorResponse[], isBatch: boolean): unknown {
  if (refused.length === 0) return answer;
  const answers = answer === undefined ? [] : Array.isArray(answer) ? answer : [answer];
  const all = [...answers, ...refused];
  return isBatch ? all : all[0];
}

/** The ids of the requests among `messages` (notifications have none). */
export function requestIds(messages: unknown[]): Id[] {
  return messages.flatMap((m) => {
    const { id, method } = m as { id?: string | number; method?: string };
    return id !== undefined && method !== undefined ? [id] : [];
  });
}

/**
 * The answer as the body sent, serialised once; past `maxBytes` one error per request instead ("Response too large"),
 * so a batch of large results never becomes a response of tens of megabytes. Undefined: nothing to send.
 */
export function boundedBody(answer: unknown, messages: unknown[], isBatch: boolean, maxBytes: number): string | undefined {
  if (answer === undefined) return undefined;
  const body = JSON.stringify(answer);
  if (Buffer.byteLength(body) <= maxBytes) return body;
  const tooLarge = requestIds(messages).map((id) => errorResponse(id, CODES.serverError, `Response too large: over ${maxBytes} bytes; ask for less in one request`));
  return JSON.stringify(isBatch ? tooLarge : tooLarge[0]);
}
