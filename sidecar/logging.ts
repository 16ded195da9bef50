// Request logging: one structured line per request (pino JSON: reqId, method, url, route, status, ms) in place
// of Fastify's two ("incoming request", "request completed"); a request that failed is logged at `error`
// with the error. Written only at LOG_LEVEL=info or finer; the default is `warn` (see docs/benchmarks/overview.md).
import { LogController, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';

export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: FastifyError | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: request.url,
      route: request.surfaceRoute ?? request.routeOptions.url ?? null,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request failed');
    else reply.log.info(line, 'request');
  }
}
