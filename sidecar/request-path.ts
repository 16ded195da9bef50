// The one judgement of a request path, for the HTTP routes (the app's onRequest hook) and the MCP tools that name
// pages (read_page, resource templates): the decoded path, or nothing when it cannot name a page here.
import type { FastifyRequest } from 'fastify';

/**
 * The decoded path of a request, or undefined when it cannot name a page: broken percent-encoding, a NUL byte,
 * a backslash, or a `.` or `..` segment (encoded or not: nothing here is addressed that way, and traversal is).
 */
export function requestPath(request: FastifyRequest): string | undefined {
  const url = request.raw.url ?? '/';
  const q = url.indexOf('?');
  return requestPathOf(q === -1 ? url : url.slice(0, q));
}

/** The same judgement for a raw path without its query (read_page asks it of the paths it follows). */
export function requestPathOf(raw: string): string | undefined {
  // Most URLs have nothing to decode or judge: answer those without decoding.
  if (raw.indexOf('%') === -1 && raw.indexOf('/.') === -1 && raw.indexOf('\\') === -1 && raw.indexOf('\0') === -1) return raw;
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  if (/[\0\\]/.test(path) || path.split('/').some((segment) => segment === '..' || segment === '.')) return undefined;
  return path;
}
