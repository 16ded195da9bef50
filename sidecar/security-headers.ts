// Security headers (CSP and the rest) from helmet, computed once at start-up. @fastify/helmet runs helmet's
// middleware on every request, re-parsing the CSP each time: 15% of the CPU of a cached live page (a --cpu-prof
// profile under wrk, recorded in docs/benchmarks/overview.md). Our headers are the same for every response, so they are
// computed once here by running that same middleware against a response that only records them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import helmet from 'helmet';
import type { PublicConfig } from '../src/lib/site-config.ts';

/**
 * The reply's Content-Security-Policy widened to allow `sources` as styles too (a live page's own stylesheet, an owner's
 * theme, by its hash): the policy is the one set on every reply, and nothing else of it changes.
 */
export function allowStyles(reply: FastifyReply, sources: readonly string[]): void {
  const policy = reply.getHeader('content-security-policy');
  if (typeof policy !== 'string') return;
  reply.header('content-security-policy', policy.replace(/(^|;)style-src /, `$1style-src ${sources.join(' ')} `));
}

/** `styleHashes`: the build's inline styles (dist/build-manifest.json), allowed by hash and nothing else inline. */
export function securityHeaders(
  config: Pick<PublicConfig, 'baseUrl'>,
  styleHashes: readonly string[],
): Record<string, string> {
  const https = config.baseUrl.startsWith('https:');
  const middleware = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        // 'wasm-unsafe-eval': the blog's search (Pagefind) compiles its WebAssembly. It lets scripts of this origin
        // (the only ones that may run) compile WebAssembly; it does not allow eval() or inline scripts.
        scriptSrc: ["'self'", "'wasm-unsafe-eval'"],
        styleSrc: ["'self'", ...styleHashes],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    // Everything here is public: other sites may link our images and agents may fetch our documents.
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    strictTransportSecurity: https,
  });
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) =>
      void headers.set(name.toLowerCase(), String(value)),
    removeHeader: (name: string) => void headers.delete(name.toLowerCase()),
  };
  let error: unknown;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => (error = err));
  if (error) throw error;
  return Object.fromEntries(headers);
}
