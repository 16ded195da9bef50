// The JSON-RPC layer of /mcp on its own (sidecar/mcp/jsonrpc.ts): parsing, the envelope, params, merging, bounding,
// and the mapping of our errors. The HTTP around it is tested through a real server in test/mcp.
import { describe, expect, it } from 'vitest';
import { boundedBody, clientMessageOf, CODES, errorResponse, invalidParams, mergeAnswers, parseMessages, requestIds, splitInvalidParams, STORE_UNAVAILABLE } from '../../sidecar/mcp/jsonrpc.ts';
import { StoreUnavailableError } from '../../sidecar/store/store.ts';

const call = (id: number, name = 'get_profile', args: unknown = { page: 'layla' }) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('parseMessages', () => {
  it('reads one message or a batch', () => {
    expect(parseMessages(JSON.stringify(call(1)), 10)).toEqual({ ok: true, isBatch: false, messages: [call(1)] });
    expect(parseMessages(JSON.stringify([call(1), call(2)]), 10)).toEqual({ ok: true, isBatch: true, messages: [call(1), call(2)] });
  });

  it.each([
    ['{"jsonrpc": "2.0",', CODES.parseError, 'Parse error'],
    ['', CODES.parseError, 'Parse error'],
    ['[]', CODES.invalidRequest, 'not a JSON-RPC 2.0 message'],
    ['{"id": 1, "method": "ping"}', CODES.invalidRequest, 'not a JSON-RPC 2.0 message'],
    ['[{"jsonrpc": "2.0", "id": 1, "method": "ping"}, 7]', CODES.invalidRequest, 'not a JSON-RPC 2.0 message'],
    ['"hello"', CODES.invalidRequest, 'not a JSON-RPC 2.0 message'],
  ])('refuses %j with %i', (body, code, text) => {
    const parsed = parseMessages(body, 10);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error).toMatchObject({ jsonrpc: '2.0', id: null, error: { code } });
      expect(parsed.error.error.message).toContain(text);
    }
  });

  it('refuses a batch over the limit, saying how many it held', () => {
    const parsed = parseMessages(JSON.stringify([call(1), call(2), call(3)]), 2);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.error.message).toContain('at most 2 messages (this one holds 3)');
  });
});

describe('params and answers', () => {
  it('answers params that do not fit their method with -32602 under the request’s id, and lets the rest through', () => {
    expect(invalidParams(call(1))).toBeUndefined();
    expect(invalidParams({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 42 } })).toMatchObject({ id: 4, error: { code: CODES.invalidParams } });
    // Unknown methods are the server's -32601; notifications have nothing to answer.
    expect(invalidParams({ jsonrpc: '2.0', id: 5, method: 'no/such' })).toBeUndefined();
    expect(invalidParams({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
    const { valid, refused } = splitInvalidParams([call(1), { jsonrpc: '2.0', id: 2, method: 'resources/read', params: {} }]);
    expect(valid).toEqual([call(1)]);
    expect(refused.map((r) => r.id)).toEqual([2]);
  });

  it('merges refused answers into a server’s, as a list for a batch and alone otherwise', () => {
    const refused = [errorResponse(2, CODES.invalidParams, 'bad')];
    expect(mergeAnswers([{ id: 1 }], refused, true)).toEqual([{ id: 1 }, refused[0]]);
    expect(mergeAnswers(undefined, refused, false)).toEqual(refused[0]);
    expect(mergeAnswers({ id: 1 }, [], false)).toEqual({ id: 1 });
  });

  it('bounds the body: past the limit, one "Response too large" error per request, notifications left out', () => {
    const messages = [call(1), { jsonrpc: '2.0', method: 'notifications/initialized' }, call(2)];
    expect(requestIds(messages)).toEqual([1, 2]);
    const big = [{ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(5000) } }, { jsonrpc: '2.0', id: 2, result: {} }];
    expect(boundedBody(big, messages, true, 100_000)).toBe(JSON.stringify(big));
    const bounded = JSON.parse(boundedBody(big, messages, true, 1000) ?? '[]') as { id: number; error: { message: string } }[];
    expect(bounded.map((b) => b.id)).toEqual([1, 2]);
    for (const b of bounded) expect(b.error.message).toContain('Response too large: over 1000 bytes');
    expect(boundedBody(undefined, messages, true, 1000)).toBeUndefined();
  });

  it('maps an unavailable database to a message a client can act on, and nothing else', () => {
    expect(clientMessageOf(new StoreUnavailableError('locked'))).toBe(STORE_UNAVAILABLE);
    expect(clientMessageOf(new Error('a bug'))).toBeUndefined();
  });
});
