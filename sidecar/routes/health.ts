// GET /health: ok when the database answers a real query, degraded (503) when it does not. Never cached.
import type { FastifyInstance } from 'fastify';
import type { SiteConfig } from '../../src/lib/site-config.ts';
import { StoreUnavailableError, type Store } from '../store/store.ts';

export function healthRoutes(app: FastifyInstance, { config, store }: { config: SiteConfig; store: Store }) {
  app.get('/health', (request, reply) => {
    let status: 'ok' | 'degraded' = 'ok';
    try {
      store.check();
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      request.log.warn({ err: err.message }, 'health degraded');
      status = 'degraded';
    }
    return reply
      .code(status === 'ok' ? 200 : 503)
      .header('cache-control', 'no-store')
      .type('application/json')
      .send({ status, service: config.serviceName, time: new Date().toISOString() });
  });
}
