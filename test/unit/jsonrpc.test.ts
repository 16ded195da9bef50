// The JSON-RPC rules of /mcp on their own (sidecar/mcp/jsonrpc.ts): a body read as one value or a batch, what a
// message is, params checked against their method, the envelope, and the mapping of our errors. The order of things
// (conductor.ts) and the HTTP around it are tested through a real server in test/mcp.
import { describe, expect, it } from 'vitest';
import { AnswerBudget, bytesLeft, withBudget } from '../../sidecar/mcp/budget.ts';
import {
  answerTooLarge,
  clientMessageOf,
  CODES,
  invalidParams,
  isMessage,
  isNotification,
  isRequest,
  parseBody,
  STORE_UNAVAILABLE,
} from '../../sidecar/mcp/jsonrpc.ts';
import { StoreUnavailableError } from '../../sidecar/store/store.ts';

const call = (id: number, name = 'get_profile', args: unknown = { page: 'layla' }) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('parseBody', () => {
  it('reads one value or a batch, whose elements are judged later one by one', () => {
    expect(parseBody(JSON.stringify(call(1)), 10)).toEqual({ ok: true, batch: false, value: call(1) });
    expect(parseBody(JSON.stringify([call(1), 7]), 10)).toEqual({ ok: true, batch: true, elements: [call(1), 7] });
    expect(parseBody('"hello"', 10)).toEqual({ ok: true, batch: false, value: 'hello' });
  });

  it.each([
    ['{"jsonrpc": "2.0",', CODES.parseError, 'Parse error'],
    ['', CODES.parseError, 'Parse error'],
    ['[]', CODES.invalidRequest, 'an empty batch'],
  ])('answers %j whole with %i', (body, code, text) => {
    const parsed = parseBody(body, 10);
    expect(!parsed.ok && parsed.error).toMatchObject({ jsonrpc: '2.0', id: null, error: { code } });
    if (!parsed.ok) expect(parsed.error.error.message).toContain(text);
  });

  it('refuses a batch over the limit, saying how many it held', () => {
    const parsed = parseBody(JSON.stringify([call(1), call(2), call(3)]), 2);
    expect(!parsed.ok && parsed.error.error.message).toContain('at most 2 messages (this one holds 3)');
  });
});

describe('messages and params', () => {
  it('tells requests, notifications and what is not a message apart', () => {
    expect(isMessage(call(1))).toBe(true);
    expect(isRequest(call(1))).toBe(true);
    const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
    expect(isMessage(notification) && isNotification(notification) && !isRequest(notification)).toBe(true);
    for (const bad of [7, 'x', null, {}, { id: 1, method: 'ping' }, { jsonrpc: '1.0', id: 1, method: 'ping' }])
      expect(isMessage(bad), JSON.stringify(bad)).toBe(false);
  });

  it('answers params that do not fit their method with -32602 under the request’s id, in one line naming the field', () => {
    expect(invalidParams(call(1))).toBeUndefined();
    const refused = invalidParams({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 42 } });
    expect(refused).toMatchObject({ id: 4, error: { code: CODES.invalidParams } });
    expect(refused?.error.message).toMatch(/^Invalid params: params\.uri: [^\n]+$/);
    // Unknown methods are the server's -32601; notifications have nothing to answer.
    expect(invalidParams({ jsonrpc: '2.0', id: 5, method: 'no/such' })).toBeUndefined();
    expect(invalidParams({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
  });

  it('says "Response too large" under the request’s id, naming the bound', () => {
    expect(answerTooLarge(3, 1000)).toMatchObject({ id: 3, error: { code: CODES.serverError } });
    expect(answerTooLarge(3, 1000).error.message).toContain('Response too large: over 1000 bytes');
  });

  it('maps an unavailable database to a message a client can act on, and nothing else', () => {
    expect(clientMessageOf(new StoreUnavailableError('locked'))).toBe(STORE_UNAVAILABLE);
    expect(clientMessageOf(new Error('a bug'))).toBeUndefined();
  });
});

describe('the answer budget', () => {
  it('is shared by what runs under it, and unbounded outside a request', async () => {
    expect(bytesLeft()).toBe(Infinity);
    const budget = new AnswerBudget(100);
    await withBudget(budget, async () => {
      expect(budget.take(60)).toBe(true);
      await new Promise((resolve) => setImmediate(resolve));
      expect(bytesLeft()).toBe(40);
      expect(budget.take(41)).toBe(false);
      expect(budget.take(40)).toBe(true);
      expect(bytesLeft()).toBe(0);
    });
    expect(bytesLeft()).toBe(Infinity);
  });
});
