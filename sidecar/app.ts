// Builds the Fastify app (plugins and routes) apart from listening, so tests and server.ts share it.
import Fastify, { type FastifyError, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import helmet from '@fastify/helmet';
import type { SiteConfig } from '../src/lib/site-config.ts';
import { StaticSite } from './static-site.ts';
import { siteRoutes } from './routes/site.ts';

export interface AppOptions {
  config: SiteConfig;
  /** dist/client of a build made for config.baseUrl. */
  clientDir: string;
  logger?: FastifyServerOptions['logger'];
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const site = new StaticSite(options.clientDir);
  const app = Fastify({
    logger: options.logger ?? false,
    // Long enough for any real URL, short enough that a hostile one is refused early.
    routerOptions: { maxParamLength: 2048 },
    return503OnClosing: true,
  });

  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'https:', 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(config.baseUrl.startsWith('https:') ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // Everything here is public: other sites may link our images and agents may fetch our documents.
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: config.baseUrl.startsWith('https:'),
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error, url: request.url }, 'request failed');
    reply.code(status).type('text/plain; charset=utf-8').send(status === 500 ? 'Internal server error\n' : `${error.message}\n`);
  });

  siteRoutes(app, { config, site });
  return app;
}
