// POST /mcp from its body to its answer, apart from HTTP: `conduct` takes what the route read of the request (the
// body and the MCP headers) and returns the answer (status, headers, body). In order: the body is read as one message
// or a batch; a single message's protocol era is the SDK's classifier's call (2026-07-28 or the 2025 revisions); what
// this server does not do is refused; each request goes to its leg (mcp-server.ts); and every answer is taken from one
// byte budget (budget.ts), so that a batch of large answers is refused answer by answer instead of being built. A
// batch is answered as JSON-RPC 2.0 section 6 says, word for word: an array (of one, for a batch of one), each element
// judged and answered on its own and in order (two requests with one id get two answers), nothing for notifications.
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { MCP_SERVER } from '../../src/lib/mcp-tools.ts';
import { AnswerBudget, withBudget, type DeferredText } from './budget.ts';
import type { McpHandlers } from './handlers.ts';
import {
  answerTooLarge,
  CODES,
  errorResponse,
  invalidParams,
  isMessage,
  isNotification,
  isRequest,
  NOT_A_MESSAGE,
  parseBody,
  type ErrorResponse,
  type Id,
} from './jsonrpc.ts';
import { mcpLegs, METHODS, type LegAnswer } from './mcp-server.ts';

/** What the route read of an HTTP request to /mcp. */
export interface McpRequest {
  body: string;
  /** The MCP headers as sent (repeated values joined), undefined when absent. */
  protocolVersion: string | undefined;
  mcpMethod: string | undefined;
  mcpName: string | undefined;
  /** The request as a Web Request (headers only), for the SDK's HTTP faces: made only when one of them is asked. */
  webRequest: () => Request;
  /** Counts `n` more messages against the client's rate (each message of a batch counts); a refusal when over. */
  chargeMessages: (n: number) => Promise<{ retryAfterSeconds: number; message: string } | undefined>;
}

/** The answer the route sends: a status, headers, and the body serialised, in bytes (undefined: none, as for 202). */
export interface McpAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

export interface ConductorLimits {
  /** Messages in one batch at most (MCP_MAX_BATCH). */
  maxBatch: number;
  /** Bytes of one response at most, whatever it holds (MCP_MAX_RESPONSE_BYTES). */
  maxResponseBytes: number;
  /** A document's text as a JSON string, in bytes: the render pool's, off the event loop. */
  jsonString: (text: DeferredText) => Promise<Buffer>;
}

/** A turn of the event loop (a macrotask), so that what waits is answered in between. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

const json = (status: number, body: unknown): McpAnswer => ({
  status,
  headers: {},
  body: Buffer.from(JSON.stringify(body)),
});
const COMMA = Buffer.from(',');
const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');

/** The 2026-07-28 revisions this server speaks (the SDK's classifier calls every later version modern too). */
const MODERN_VERSIONS: ReadonlySet<string> = new Set(MCP_SERVER.protocolVersions.filter((v) => v >= '2026-07-28'));

export function mcpConductor(
  handlers: McpHandlers,
  limits: ConductorLimits,
): (request: McpRequest) => Promise<McpAnswer> {
  const { modern, legacy } = mcpLegs(handlers);

  /**
   * A message serialised to bytes, each document that stands in it as a token (budget.ts) written in as a JSON string
   * escaped by the render pool: what the event loop serialises is the envelope.
   */
  async function bytesOf(message: unknown, budget: AnswerBudget): Promise<Buffer> {
    // The SDK's answers arrive serialised: written once, by it.
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    if (budget.deferred.size === 0) return Buffer.from(text);
    const found = [...budget.deferred]
      .map(([token, body]) => ({ token, body, at: text.indexOf(`"${token}"`) }))
      .filter((d) => d.at !== -1)
      .sort((a, b) => a.at - b.at);
    const parts: Buffer[] = [];
    let from = 0;
    for (const { token, body, at } of found) {
      parts.push(Buffer.from(text.slice(from, at)), await limits.jsonString(body));
      from = at + token.length + 2;
      budget.deferred.delete(token);
    }
    parts.push(Buffer.from(text.slice(from)));
    return Buffer.concat(parts);
  }

  /** A leg's answer bounded by the budget: past it, one "Response too large" error in place of the answer. */
  const bounded = async (answer: LegAnswer, id: Id, budget: AnswerBudget): Promise<McpAnswer> => {
    if (answer.body === undefined) return { status: answer.status, headers: answer.headers, body: undefined };
    const body = await bytesOf(answer.body, budget);
    if (budget.take(body.length)) return { status: answer.status, headers: answer.headers, body };
    return json(200, answerTooLarge(id, limits.maxResponseBytes));
  };

  async function single(request: McpRequest, message: unknown, budget: AnswerBudget): Promise<McpAnswer> {
    if (!isMessage(message)) return json(400, errorResponse(null, CODES.invalidRequest, NOT_A_MESSAGE));
    const id = isRequest(message) ? message.id : null;
    const era = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: request.protocolVersion,
      mcpMethodHeader: request.mcpMethod,
      mcpNameHeader: request.mcpName,
      body: message,
    } as Parameters<typeof classifyInboundRequest>[0]);
    if (era.kind === 'legacy') {
      const unsupported = unsupportedVersion(request.protocolVersion);
      if (unsupported) return json(400, unsupported);
      const refused = invalidParams(message);
      if (refused) return json(200, refused);
      return bounded(await legacy(request, message), id, budget);
    }
    // 2026-07-28 (or a version the SDK's handler refuses, or headers it finds in disagreement: it answers those).
    if (era.kind === 'modern') {
      const version = era.classification.revision ?? request.protocolVersion;
      // A listen stream would stay open for good: this stateless, read-only server sends no notifications (and
      // advertises none: MCP_SERVER.capabilities). Only under a version it speaks: any other is the SDK's
      // unsupported-version error, which lists the versions it does.
      // Method not found is 404 on this revision, as the SDK answers any method it does not serve.
      if (
        isRequest(message) &&
        message.method === 'subscriptions/listen' &&
        version !== undefined &&
        MODERN_VERSIONS.has(version)
      ) {
        return json(
          404,
          errorResponse(
            id,
            CODES.methodNotFound,
            'Method not found: this stateless, read-only server has no subscription streams; list again to see changes',
          ),
        );
      }
      // Params judged here only for the methods the revision serves (the SDK answers the removed ones, 404).
      if (
        version !== undefined &&
        MODERN_VERSIONS.has(version) &&
        isRequest(message) &&
        METHODS.modern.has(message.method)
      ) {
        const refused = invalidParams(message);
        if (refused) return json(200, refused);
      }
    }
    return bounded(await modern(request.webRequest(), message), id, budget);
  }

  async function batch(request: McpRequest, elements: unknown[], budget: AnswerBudget): Promise<McpAnswer> {
    // Batches are a 2025-03-26 form: the 2026-07-28 revision has none (the SDK's classifier says the same).
    if (
      elements.some(
        (element) =>
          isMessage(element) && classifyInboundRequest({ httpMethod: 'POST', body: element }).kind !== 'legacy',
      )
    ) {
      return json(
        400,
        errorResponse(
          null,
          CODES.invalidRequest,
          'Invalid Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later',
        ),
      );
    }
    const unsupported = unsupportedVersion(request.protocolVersion);
    if (unsupported) return json(400, unsupported);
    // The route counted the POST once; a batch counts each of its messages.
    const over = await request.chargeMessages(elements.length - 1);
    if (over)
      return {
        ...json(429, errorResponse(null, CODES.serverError, over.message)),
        headers: { 'retry-after': String(over.retryAfterSeconds) },
      };

    const answers: Buffer[] = [];
    let anyMessage = false;
    // One at a time, in order: a batch holds one answer in the making, and its answers share the budget. Between two,
    // a turn of the event loop: each message's own work is answered from settled promises (the shared server, the
    // live cache), whose continuations never yield, and four batches of ten large answers held the loop 4 s.
    for (const [at, element] of elements.entries()) {
      if (at > 0) await turn();
      if (!isMessage(element)) {
        answers.push(take(budget, errorResponse(null, CODES.invalidRequest, NOT_A_MESSAGE)));
        continue;
      }
      anyMessage = true;
      // A response posted by the client answers nothing this server asked; a notification gets nothing back.
      if (!isRequest(element) && !isNotification(element)) continue;
      const refused = invalidParams(element);
      if (refused) {
        answers.push(take(budget, refused));
        continue;
      }
      const answer = await legacy(request, element);
      if (answer.body === undefined || !isRequest(element)) continue;
      const body = await bytesOf(answer.body, budget);
      answers.push(
        budget.take(body.length + 1) ? body : take(budget, answerTooLarge(element.id, limits.maxResponseBytes)),
      );
    }
    if (answers.length === 0) return { status: 202, headers: {}, body: undefined };
    // Bytes joined once: a string of megabytes joined, then encoded, held the loop 40 ms.
    return {
      status: anyMessage ? 200 : 400,
      headers: {},
      body: Buffer.concat([OPEN, ...answers.flatMap((a, i) => (i === 0 ? [a] : [COMMA, a])), CLOSE]),
    };
  }

  return (request) => {
    const budget = new AnswerBudget(limits.maxResponseBytes);
    return withBudget(budget, async () => {
      const body = parseBody(request.body, limits.maxBatch);
      if (!body.ok) return json(400, body.error);
      return body.batch ? batch(request, body.elements, budget) : single(request, body.value, budget);
    });
  };
}

/** An error answer, serialised and taken from the budget (errors are small: they are sent even past it). */
function take(budget: AnswerBudget, error: ErrorResponse): Buffer {
  const body = Buffer.from(JSON.stringify(error));
  budget.take(body.length + 1);
  return body;
}

/** The refusal of an MCP-Protocol-Version header this server does not speak, as the SDK words it, listing those it does. */
function unsupportedVersion(version: string | undefined): ErrorResponse | undefined {
  if (version === undefined || (MCP_SERVER.protocolVersions as readonly string[]).includes(version)) return undefined;
  return errorResponse(
    null,
    CODES.serverError,
    `Bad Request: Unsupported protocol version: ${version} (supported versions: ${MCP_SERVER.protocolVersions.join(', ')})`,
  );
}
