// Request ids (issue 64): one per request, in every log line of it (pino's reqId) and in the answer's X-Request-Id,
// so that an operator follows one request from the edge or the front to the sidecar and back. Taken from the request
// when a proxy TRUST_PROXY names sent a sane one (the front and the edge make theirs), made otherwise: a client's own
// is not believed, or anyone could write another request's id into the logs.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { proxyCheck } from './admission/connection-limits.ts';

/** What a proxy's id may be: up to 128 characters of letters, digits and `._:-`, nothing a log or a header would read. */
const SANE = /^[\w.:-]{1,128}$/;

/** Fastify's genReqId: the trusted proxy's id, or a new UUID. */
export function requestIds(trustProxy: string): (request: IncomingMessage) => string {
  const fromProxy = proxyCheck(trustProxy);
  return (request) => {
    const given = request.headers['x-request-id'];
    return typeof given === 'string' && SANE.test(given) && fromProxy(request.socket.remoteAddress)
      ? given
      : randomUUID();
  };
}
